import { isGatewayError, failedPrecondition, unavailable, assertReplicaId, ReplicaTracker, systemContext, type EngineAdapterApi, type RequestContext, type JsonObject, type JsonValue, type LaunchSpec, type Provisioner, type ReplicaHandle, type ReplicaPhase, type ReplicaSpec, type StartReplicaRequest } from '@berth/core';
import { kubernetesReplicaAdapters } from './kubernetes-adapters.js';
import { fetchPlanOf, type FetchPlan } from './model-fetcher.js';
import {
  berthAnnotations,
  berthLabels,
  deploymentLabelValue,
  kubernetesReplicaName,
  renderKubernetesManifests,
  uploadedWeightsPath,
  type KubernetesManifest,
  type KubernetesManifestOptions,
  type KubernetesObjectRef,
} from './kubernetes-manifests.js';

/**
 * The few Kubernetes operations the provisioner needs. Runtime plugins provide a default implementation on
 * `@kubernetes/client-node` ({@link kubernetesApiFromObjectApi}); tests may pass a fake.
 */
export interface KubernetesApi {
  /**
   * Creates or updates an object (server-side apply, field manager `berth`).
   * @throws GatewayError UNAVAILABLE (or any error) when the API server refuses or cannot be reached.
   */
  apply(ctx: RequestContext, manifest: KubernetesManifest): Promise<void>;
  /** Deletes an object and, in the background, what it owns (a Job's pods); an absent object is not an error. */
  delete(ctx: RequestContext, ref: KubernetesObjectRef): Promise<void>;
  /** Lists objects of a kind in a namespace matching a label selector. */
  list(
    ctx: RequestContext,
    query: { readonly apiVersion: string; readonly kind: string; readonly namespace: string; readonly labelSelector: string },
  ): Promise<readonly KubernetesManifest[]>;
}

/**
 * The subset of `@kubernetes/client-node`'s `KubernetesObjectApi` used by {@link kubernetesApiFromObjectApi}.
 * Declared structurally so core does not depend on the client.
 */
export interface KubernetesObjectApiLike {
  patch(
    spec: KubernetesManifest,
    pretty?: string,
    dryRun?: string,
    fieldManager?: string,
    force?: boolean,
    patchStrategy?: 'application/apply-patch+yaml',
  ): Promise<unknown>;
  delete(
    spec: { apiVersion: string; kind: string; metadata: { name: string; namespace: string } },
    pretty?: string,
    dryRun?: string,
    gracePeriodSeconds?: number,
    orphanDependents?: boolean,
    propagationPolicy?: string,
  ): Promise<unknown>;
  list(
    apiVersion: string,
    kind: string,
    namespace?: string,
    pretty?: string,
    exact?: boolean,
    exportt?: boolean,
    fieldSelector?: string,
    labelSelector?: string,
  ): Promise<{ items: readonly unknown[] }>;
}

function statusOf(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown; statusCode?: unknown }).code ?? (error as { statusCode?: unknown }).statusCode;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

function toUnavailable(action: string, error: unknown): Error {
  if (isGatewayError(error)) return error;
  const status = statusOf(error);
  return unavailable(`Kubernetes API: ${action} failed${status ? ` (HTTP ${status})` : ''}`, { cause: error });
}

/** Adapts `KubernetesObjectApi.makeApiClient(kubeConfig)` from `@kubernetes/client-node` to {@link KubernetesApi}. */
export function kubernetesApiFromObjectApi(objectApi: KubernetesObjectApiLike): KubernetesApi {
  return {
    async apply(_ctx, manifest) {
      try {
        await objectApi.patch(manifest, undefined, undefined, 'berth', true, 'application/apply-patch+yaml');
      } catch (error) {
        throw toUnavailable(`apply ${manifest.kind} ${manifest.metadata.name}`, error);
      }
    },
    async delete(_ctx, ref) {
      try {
        // Background propagation: a deleted Job's pods go with it (batch/v1's own default would orphan them, still holding accelerators).
        await objectApi.delete({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace } }, undefined, undefined, undefined, undefined, 'Background');
      } catch (error) {
        if (statusOf(error) === 404) return;
        throw toUnavailable(`delete ${ref.kind} ${ref.name}`, error);
      }
    },
    async list(_ctx, query) {
      try {
        const result = await objectApi.list(query.apiVersion, query.kind, query.namespace, undefined, undefined, undefined, undefined, query.labelSelector);
        return result.items as KubernetesManifest[];
      } catch (error) {
        throw toUnavailable(`list ${query.kind}`, error);
      }
    },
  };
}

export interface KubernetesProvisionerOptions extends Partial<KubernetesManifestOptions> {
  readonly api: KubernetesApi;
  /** Vendor id written to labels; listing only sees this vendor's replicas. */
  readonly vendor: string;
  /** Renders a replica's launch spec (the runtime's `renderLaunchSpec`). */
  readonly renderLaunchSpec: (spec: ReplicaSpec) => LaunchSpec;
  /** Default `berth`. */
  readonly namespace?: string;
  /** Interval between pod status polls. Default 2 s. */
  readonly pollIntervalMs?: number;
  /** Container restarts after which a replica counts as failed. Default 3. */
  readonly failAfterRestarts?: number;
  /** The endpoint of a ready replica. Default `http://{service}.{namespace}.svc.cluster.local:{port}`. */
  readonly endpointFor?: (service: string, namespace: string, port: number) => string;
  /** How long the signed download URLs handed to a replica stay valid. Default 3600 s. */
  readonly downloadUrlTtlSeconds?: number;
}

const fatalWaitingReasons = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'CreateContainerConfigError', 'CreateContainerError']);

interface PodView {
  readonly phase: string | undefined;
  readonly conditions: readonly { type?: string; status?: string; reason?: string; message?: string }[];
  readonly initContainerStatuses: readonly ContainerStatusView[];
  readonly containerStatuses: readonly ContainerStatusView[];
}

interface ContainerStatusView {
  readonly name?: string;
  readonly restartCount?: number;
  readonly lastState?: { readonly terminated?: { readonly exitCode?: number; readonly message?: string } };
  readonly state?: {
    readonly waiting?: { readonly reason?: string; readonly message?: string };
    readonly running?: JsonObject;
    readonly terminated?: { readonly exitCode?: number; readonly reason?: string };
  };
}

function asArray<T>(value: JsonValue | undefined): readonly T[] {
  return Array.isArray(value) ? (value as unknown as T[]) : [];
}

function podView(pod: KubernetesManifest): PodView {
  const status: JsonObject = pod.status ?? {};
  return {
    phase: typeof status.phase === 'string' ? status.phase : undefined,
    conditions: asArray(status.conditions),
    initContainerStatuses: asArray(status.initContainerStatuses),
    containerStatuses: asArray(status.containerStatuses),
  };
}

/**
 * Derives a replica's phase from its pod: no pod or unscheduled → pending_scheduling; init containers (the
 * model download) not yet done → downloading; containers started but not Ready → initializing; Ready →
 * ready; pod Failed, an image / config error, or more than `failAfterRestarts` restarts → failed.
 */
export function replicaPhaseFromPod(pod: KubernetesManifest | undefined, failAfterRestarts = 3): { phase: ReplicaPhase; message?: string } {
  if (!pod) return { phase: 'pending_scheduling', message: 'waiting for the pod to be created' };
  const view = podView(pod);
  if (view.phase === 'Failed') return { phase: 'failed', message: 'the pod failed' };
  for (const status of [...view.initContainerStatuses, ...view.containerStatuses]) {
    const waiting = status.state?.waiting;
    if (waiting?.reason && fatalWaitingReasons.has(waiting.reason)) {
      return { phase: 'failed', message: `${status.name ?? 'container'}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}` };
    }
    if ((status.restartCount ?? 0) > failAfterRestarts) {
      // The model fetcher's last words (terminationMessagePolicy FallbackToLogsOnError) say which file failed.
      const last = status.lastState?.terminated?.message?.trim();
      return { phase: 'failed', message: `${status.name ?? 'container'} restarted ${status.restartCount} times${last ? `: ${last.slice(-500)}` : ''}` };
    }
  }
  const condition = (type: string) => view.conditions.find((c) => c.type === type);
  const scheduled = condition('PodScheduled');
  if (scheduled?.status !== 'True') {
    return { phase: 'pending_scheduling', message: scheduled?.message ?? 'waiting for a node with free accelerators' };
  }
  if (condition('Ready')?.status === 'True') return { phase: 'ready' };
  const initDone = view.initContainerStatuses.every((s) => s.state?.terminated?.exitCode === 0);
  if (!initDone) return { phase: 'downloading', message: 'downloading the model' };
  return { phase: 'initializing', message: 'the engine is loading the model' };
}

/** A {@link KubernetesApi} built on first use: building the default one reads kubeconfig files (I/O). */
export function lazyKubernetesApi(create: () => KubernetesApi): KubernetesApi {
  let api: KubernetesApi | undefined;
  const get = () => (api ??= create());
  return {
    apply: (ctx, manifest) => get().apply(ctx, manifest),
    delete: (ctx, ref) => get().delete(ctx, ref),
    list: (ctx, query) => get().list(ctx, query),
  };
}

/**
 * A provisioner on Kubernetes: each replica is a Deployment + Service ({@link renderKubernetesManifests}).
 * Phases come from polling the vendor's pods ({@link replicaPhaseFromPod}); listing reads the Deployments back
 * (their annotations carry the deployment name and replica spec), which is how replicas are re-adopted after a
 * gateway restart. `close()` stops polling only: the replicas keep running in the cluster.
 */
export function kubernetesProvisioner(options: KubernetesProvisionerOptions): Provisioner {
  const namespace = options.namespace ?? 'berth';
  const pollIntervalMs = options.pollIntervalMs ?? 2_000;
  const failAfterRestarts = options.failAfterRestarts ?? 3;
  const manifestOptions: KubernetesManifestOptions = { ...options, namespace };
  const endpointFor = options.endpointFor ?? ((service: string, ns: string, port: number) => `http://${service}.${ns}.svc.cluster.local:${port}`);
  const trackers = new Map<string, { tracker: ReplicaTracker; port: number; adapterApi: EngineAdapterApi | undefined }>();
  const ttlSeconds = options.downloadUrlTtlSeconds ?? 3600;
  const fetcherPort = options.addonFetcherPort ?? 8081;
  const vendorSelector = `${berthLabels.managedBy}=berth,${berthLabels.vendor}=${options.vendor}`;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let polling: Promise<void> | undefined;
  let closed = false;

  const refresh = async (ctx: RequestContext) => {
    const active = [...trackers.values()].filter((t) => !t.tracker.terminal);
    if (active.length === 0) return;
    const pods = await options.api.list(ctx, { apiVersion: 'v1', kind: 'Pod', namespace, labelSelector: vendorSelector });
    for (const { tracker, port } of active) {
      const pod = pods.find((p) => p.metadata.labels?.[berthLabels.replica] === tracker.replicaId);
      const { phase, message } = replicaPhaseFromPod(pod, failAfterRestarts);
      if (phase === tracker.phase) {
        if (message) tracker.note(message);
        continue;
      }
      const endpoint = phase === 'ready' ? endpointFor(kubernetesReplicaName(tracker.replicaId), namespace, port) : undefined;
      tracker.transition(phase, { ...(endpoint ? { endpoint } : {}), ...(message ? { message } : {}) });
    }
  };

  const schedulePoll = () => {
    if (closed || timer || polling) return;
    timer = setTimeout(() => {
      timer = undefined;
      polling = refresh(systemContext('kubernetes-poll'))
        .catch(() => undefined)
        .finally(() => {
          polling = undefined;
          if ([...trackers.values()].some((t) => !t.tracker.terminal)) schedulePoll();
        });
    }, pollIntervalMs);
    // Polling must not keep the process alive on its own.
    timer.unref();
  };

  const track = (replicaId: string, deployment: string, spec: ReplicaSpec, launch: LaunchSpec): ReplicaTracker => {
    const tracker = new ReplicaTracker(replicaId, deployment, spec);
    trackers.set(replicaId, { tracker, port: launch.port, adapterApi: launch.adapterApi });
    return tracker;
  };

  /** An uploaded base model: its fetch plan, and the spec pointing the engine at the downloaded files. */
  const weightsOf = (request: StartReplicaRequest): { spec: ReplicaSpec; plan?: FetchPlan } => {
    const weights = request.weights;
    if (!weights) return { spec: request.spec };
    if (!options.gatewayUrl) {
      throw failedPrecondition(`model ${weights.model} was uploaded to the gateway: the kubernetes provisioner needs gatewayUrl for replicas to download it`, {
        reason: 'GATEWAY_URL_MISSING',
      });
    }
    const plan = fetchPlanOf(weights, uploadedWeightsPath(manifestOptions), options.gatewayUrl, ttlSeconds);
    return { spec: { ...request.spec, checkpointUri: plan.dir }, plan };
  };

  return {
    kind: 'kubernetes',
    adapters: kubernetesReplicaAdapters({
      replica: (replicaId) => {
        const entry = trackers.get(replicaId);
        if (!entry) return undefined;
        const service = kubernetesReplicaName(replicaId);
        return { endpoint: entry.tracker.status().endpoint, fetcher: endpointFor(service, namespace, fetcherPort), api: entry.adapterApi };
      },
      gatewayUrl: options.gatewayUrl,
      modelCachePath: options.modelCachePath ?? '/models',
      urlTtlSeconds: ttlSeconds,
    }),
    async startReplica(ctx, request: StartReplicaRequest): Promise<ReplicaHandle> {
      assertReplicaId(request.replicaId);
      const existing = trackers.get(request.replicaId);
      if (existing && !existing.tracker.terminal) return existing.tracker;
      const { spec, plan } = weightsOf(request);
      const launch = options.renderLaunchSpec(spec);
      const { deployment, service } = renderKubernetesManifests(launch, request, manifestOptions, plan);
      await options.api.apply(ctx, deployment);
      await options.api.apply(ctx, service);
      const tracker = track(request.replicaId, request.deployment, request.spec, launch);
      closed = false;
      schedulePoll();
      return tracker;
    },
    async stopReplica(ctx, replicaId) {
      const name = kubernetesReplicaName(replicaId);
      await options.api.delete(ctx, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name });
      await options.api.delete(ctx, { apiVersion: 'v1', kind: 'Service', namespace, name });
      const entry = trackers.get(replicaId);
      trackers.delete(replicaId);
      entry?.tracker.transition('stopped', { message: 'stopped' });
    },
    async listReplicas(ctx, filter = {}) {
      const selector =
        filter.deployment === undefined ? vendorSelector : `${vendorSelector},${berthLabels.deployment}=${deploymentLabelValue(filter.deployment)}`;
      const deployments = await options.api.list(ctx, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, labelSelector: selector });
      const handles: ReplicaHandle[] = [];
      for (const object of deployments) {
        const replicaId = object.metadata.labels?.[berthLabels.replica];
        const deploymentName = object.metadata.annotations?.[berthAnnotations.deployment];
        if (!replicaId || !deploymentName) continue;
        if (filter.deployment !== undefined && deploymentName !== filter.deployment) continue;
        let entry = trackers.get(replicaId);
        if (!entry) {
          let spec: ReplicaSpec;
          try {
            spec = JSON.parse(object.metadata.annotations?.[berthAnnotations.replicaSpec] ?? '') as ReplicaSpec;
          } catch {
            continue;
          }
          track(replicaId, deploymentName, spec, options.renderLaunchSpec(spec));
          entry = trackers.get(replicaId);
        }
        if (entry) handles.push(entry.tracker);
      }
      await refresh(ctx);
      closed = false;
      schedulePoll();
      return handles;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await polling;
    },
  };
}
