import { failedPrecondition } from '../errors/index.js';
import { ReplicaTracker } from './replica-tracker.js';
import { runningReplica, trackedReplicaMethods } from './tracked-replicas.js';
import { servedModelId } from './replica-spec.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { Provisioner, ReplicaHandle, StartReplicaRequest } from '../ports/provisioner.js';

export interface StaticProvisionerOptions {
  /**
   * Existing OpenAI-compatible servers per base model: key = base model resource name (or served model id),
   * value = base URL(s), with or without a trailing `/v1`. Each URL backs at most one replica at a time.
   */
  readonly servers: Readonly<Record<string, string | readonly string[]>>;
  /** Interval between readiness probes. Default 200 ms. */
  readonly pollIntervalMs?: number;
  /** A replica whose server has not answered by then fails. Default 60 s. */
  readonly readyTimeoutMs?: number;
  /** Timeout of one probe. Default 2 s. */
  readonly probeTimeoutMs?: number;
}

interface StaticReplica {
  readonly tracker: ReplicaTracker;
  readonly request: StartReplicaRequest;
  readonly candidates: readonly string[];
  url: string | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  deadline: number;
}

/** Base URL without trailing slashes or `/v1`. */
function normalize(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * A provisioner over servers that already run (any OpenAI-compatible engine). Starting a replica claims a free
 * configured URL for its base model (pending_scheduling while all are claimed), probes `GET {url}/v1/models`
 * (initializing) and is ready once that answers 2xx; it fails after `readyTimeoutMs`. Stopping releases the
 * URL; nothing is started or stopped on the server itself.
 */
export function staticProvisioner(options: StaticProvisionerOptions): Provisioner {
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 2_000;
  const servers = new Map<string, string[]>(
    Object.entries(options.servers).map(([model, urls]) => [model, (typeof urls === 'string' ? [urls] : [...urls]).map(normalize)]),
  );
  const replicas = new Map<string, StaticReplica>();
  const claimed = new Set<string>();

  const probe = async (url: string): Promise<boolean> => {
    try {
      const response = await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(probeTimeoutMs) });
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false;
    }
  };

  const poll = (replica: StaticReplica) => {
    replica.timer = setTimeout(() => {
      replica.timer = undefined;
      void check(replica);
    }, pollIntervalMs);
  };

  const check = async (replica: StaticReplica) => {
    const { tracker } = replica;
    if (tracker.terminal || !replica.url) return;
    if (await probe(replica.url)) {
      if (!tracker.terminal) tracker.transition('ready', { endpoint: replica.url });
      return;
    }
    if (Date.now() > replica.deadline) {
      release(replica);
      tracker.transition('failed', { message: `${replica.url}/v1/models did not answer within ${readyTimeoutMs} ms` });
      assign();
      return;
    }
    if (!tracker.terminal) poll(replica);
  };

  const release = (replica: StaticReplica) => {
    if (replica.timer) clearTimeout(replica.timer);
    replica.timer = undefined;
    if (replica.url) claimed.delete(replica.url);
  };

  const assign = () => {
    for (const replica of replicas.values()) {
      if (replica.url || replica.tracker.terminal) continue;
      const url = replica.candidates.find((u) => !claimed.has(u));
      if (!url) {
        replica.tracker.note(`waiting for a free server: all ${replica.candidates.length} configured for the model are in use`);
        continue;
      }
      claimed.add(url);
      replica.url = url;
      replica.deadline = Date.now() + readyTimeoutMs;
      replica.tracker.transition('initializing', { message: `probing ${url}/v1/models` });
      void check(replica);
    }
  };

  const stop = async (replicaId: string) => {
    const replica = replicas.get(replicaId);
    if (!replica) return;
    replicas.delete(replicaId);
    release(replica);
    replica.tracker.transition('stopped', { message: 'stopped' });
    assign();
  };

  return {
    kind: 'static',
    async startReplica(_ctx: RequestContext, request: StartReplicaRequest): Promise<ReplicaHandle> {
      const running = await runningReplica(replicas, request.replicaId, stop);
      if (running) return running;
      const candidates = servers.get(request.spec.baseModel) ?? servers.get(servedModelId(request.spec));
      if (!candidates || candidates.length === 0) {
        throw failedPrecondition(`no static server is configured for base model ${request.spec.baseModel}`, { field: 'baseModel' });
      }
      const tracker = new ReplicaTracker(request.replicaId, request.deployment, request.spec);
      replicas.set(request.replicaId, { tracker, request, candidates, url: undefined, timer: undefined, deadline: 0 });
      assign();
      return tracker;
    },
    ...trackedReplicaMethods(replicas, stop),
  };
}
