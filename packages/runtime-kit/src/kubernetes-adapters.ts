import {
  failedPrecondition,
  listEngineAdapters,
  loadEngineAdapter,
  notFound,
  unavailable,
  unloadEngineAdapter,
  type EngineAdapterApi,
  type ReplicaAdapters,
} from '@berth/core';
import { addonDirectory, fetchPlanOf } from './model-fetcher.js';

/** What the adapter calls need of one replica the Kubernetes provisioner runs. */
export interface KubernetesReplicaEndpoints {
  /** The engine's base URL; undefined until the replica is ready. */
  readonly endpoint: string | undefined;
  /** The `addon-fetcher` sidecar's base URL. */
  readonly fetcher: string;
  readonly api: EngineAdapterApi | undefined;
}

export interface KubernetesAdapterOptions {
  readonly replica: (replicaId: string) => KubernetesReplicaEndpoints | undefined;
  readonly gatewayUrl: string | undefined;
  readonly modelCachePath: string;
  readonly urlTtlSeconds: number;
}

const fetchTimeoutMs = 30 * 60_000;

/**
 * Add-ons on Kubernetes replicas: an add-on with uploaded files is first downloaded by the replica's
 * `addon-fetcher` sidecar (`POST /fetch` with a plan of short-lived signed URLs, checked file by file) into
 * its directory in the shared model cache, then loaded by the engine from there through the engine's adapter
 * API (vLLM `/v1/load_lora_adapter`, or the profile's); an add-on without files is loaded by its name.
 */
export function kubernetesReplicaAdapters(options: KubernetesAdapterOptions): ReplicaAdapters {
  const ready = (replicaId: string): { endpoint: string; fetcher: string; api: EngineAdapterApi } => {
    const replica = options.replica(replicaId);
    if (!replica) throw notFound(`replica ${replicaId}`);
    if (!replica.endpoint) throw failedPrecondition(`replica ${replicaId} is not ready`, { reason: 'REPLICA_NOT_READY' });
    if (!replica.api) throw failedPrecondition(`replica ${replicaId} does not serve add-ons (enableAddons is off)`, { reason: 'ADDONS_DISABLED' });
    return { endpoint: replica.endpoint, fetcher: replica.fetcher, api: replica.api };
  };
  return {
    async load(_ctx, replicaId, adapter) {
      const { endpoint, fetcher, api } = ready(replicaId);
      let path = adapter.name;
      if (adapter.source) {
        if (!options.gatewayUrl) {
          throw failedPrecondition(`add-on ${adapter.name} was uploaded to the gateway: the kubernetes provisioner needs gatewayUrl for replicas to download it`, {
            reason: 'GATEWAY_URL_MISSING',
          });
        }
        const plan = fetchPlanOf(adapter.source, addonDirectory(options.modelCachePath, adapter.name), options.gatewayUrl, options.urlTtlSeconds);
        let response: Response;
        try {
          response = await fetch(`${fetcher}/fetch`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(plan),
            signal: AbortSignal.timeout(fetchTimeoutMs),
          });
        } catch (error) {
          throw unavailable(`the add-on fetcher of replica ${replicaId} cannot be reached: ${String(error)}`, { cause: error });
        }
        const body = (await response.json().catch(() => ({}))) as { dir?: unknown; error?: unknown };
        if (!response.ok || typeof body.dir !== 'string') {
          throw failedPrecondition(`replica ${replicaId} could not download add-on ${adapter.name}: ${String(body.error ?? `HTTP ${response.status}`)}`, {
            reason: 'MODEL_FILE_INVALID',
          });
        }
        path = body.dir;
      }
      await loadEngineAdapter(endpoint, api, adapter.name, path);
    },
    async unload(_ctx, replicaId, name) {
      const replica = options.replica(replicaId);
      if (!replica?.endpoint || !replica.api) return;
      await unloadEngineAdapter(replica.endpoint, replica.api, name);
    },
    async loaded(_ctx, replicaId) {
      const { endpoint, api } = ready(replicaId);
      return listEngineAdapters(endpoint, api);
    },
  };
}
