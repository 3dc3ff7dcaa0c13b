import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { startReferenceEngine, type EngineFaults, type EngineSpeed, type ReferenceEngine } from '../engine/reference-engine.js';
import { failedPrecondition, notFound, toGatewayError } from '../errors/index.js';
import { ReplicaTracker } from './replica-tracker.js';
import { runningReplica, trackedReplicaMethods } from './tracked-replicas.js';
import { replicaContextLength, servedModelId } from './replica-spec.js';
import { addonCacheSize } from './engine-args.js';
import { listEngineAdapters, loadEngineAdapter, unloadEngineAdapter, vllmAdapterApi } from './engine-adapter-api.js';
import { fetchModelFiles } from './model-file-fetch.js';
import { systemContext, type RequestContext } from '../contracts/request-context.js';
import type { Provisioner, ReplicaAdapters, ReplicaHandle, ReplicaPhase, StartReplicaRequest } from '../ports/provisioner.js';

/** Phase durations of simulated replicas. Defaults are small so tests stay fast. */
export interface SimulatedDelays {
  /** Time in pending_scheduling once capacity is free. Default 50 ms. */
  readonly schedulingMs?: number;
  /** Time in downloading. Default 150 ms. */
  readonly downloadingMs?: number;
  /** Time in initializing (the engine starts meanwhile). Default 100 ms. */
  readonly initializingMs?: number;
}

/** Failures to inject into simulated replicas. */
export interface SimulatedFailures {
  /** The next n started replicas fail. */
  readonly failNextReplicas?: number;
  /** Replicas for which this returns true (or a message) fail. */
  readonly shouldFail?: (request: StartReplicaRequest) => boolean | string;
  /** The phase an injected failure ends. Default `initializing`. */
  readonly failIn?: Exclude<ReplicaPhase, 'ready' | 'failed' | 'stopped'>;
}

export interface SimulatedProvisionerOptions {
  /** Accelerators available per type; a type not listed has `defaultInventory`. */
  readonly inventory?: Readonly<Record<string, number>>;
  /** Default 64. */
  readonly defaultInventory?: number;
  readonly delays?: SimulatedDelays;
  readonly failures?: SimulatedFailures;
  /** Settings of every replica's reference engine. */
  readonly engine?: { readonly speed?: EngineSpeed; readonly faults?: EngineFaults; readonly host?: string };
}

/** Inventory of one accelerator type. */
export interface SimulatedCapacity {
  readonly total: number;
  readonly used: number;
}

/**
 * The simulated provisioner: a pretend cluster in this process. Each ready replica is a reference engine on a
 * loopback port. A replica of an uploaded model really reads its files in `downloading` (streamed from the
 * blob store, each checked against its recorded size and SHA-256; a missing or corrupt file fails the
 * replica naming the file). LoRA add-ons load at run time: their files are fetched (and checked) into the
 * replica's own temporary directory and the engine is asked to load them from there, as vLLM would be.
 * Test hooks change capacity, inject failures and crash replicas.
 */
export interface SimulatedProvisioner extends Provisioner {
  readonly kind: 'simulated';
  readonly adapters: ReplicaAdapters;
  /** Replaces the failure settings (e.g. `{ failNextReplicas: 2 }`). */
  injectFailures(failures: SimulatedFailures): void;
  /** Sets the accelerators of a type; pending replicas are scheduled if they now fit. */
  setInventory(acceleratorType: string, count: number): void;
  capacity(acceleratorType: string): SimulatedCapacity;
  /** Kills a replica: it becomes `failed`, its engine stops and its accelerators are freed. No-op if unknown. */
  crashReplica(replicaId: string, message?: string): Promise<void>;
  /** The engine of a ready replica (to inject faults or read stats). */
  engineOf(replicaId: string): ReferenceEngine | undefined;
}

interface SimulatedReplica {
  readonly tracker: ReplicaTracker;
  readonly request: StartReplicaRequest;
  readonly failWith: string | undefined;
  allocated: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  engine: ReferenceEngine | undefined;
  /** The replica's local disk (add-on files), made on the first add-on load and removed with the replica. */
  workDir: Promise<string> | undefined;
}

/** Creates a {@link SimulatedProvisioner}. No I/O until a replica starts. */
export function simulatedProvisioner(options: SimulatedProvisionerOptions = {}): SimulatedProvisioner {
  const delays = {
    schedulingMs: options.delays?.schedulingMs ?? 50,
    downloadingMs: options.delays?.downloadingMs ?? 150,
    initializingMs: options.delays?.initializingMs ?? 100,
  };
  const totals = new Map<string, number>(Object.entries(options.inventory ?? {}));
  const used = new Map<string, number>();
  const replicas = new Map<string, SimulatedReplica>();
  let failures: SimulatedFailures = options.failures ?? {};
  let failNext = failures.failNextReplicas ?? 0;

  const total = (type: string) => totals.get(type) ?? options.defaultInventory ?? 64;
  const free = (type: string) => total(type) - (used.get(type) ?? 0);

  const release = (replica: SimulatedReplica) => {
    if (!replica.allocated) return;
    replica.allocated = false;
    const type = replica.request.spec.acceleratorType;
    used.set(type, (used.get(type) ?? 0) - replica.request.spec.acceleratorCount);
  };

  const removeWorkDir = async (replica: SimulatedReplica) => {
    const dir = replica.workDir;
    replica.workDir = undefined;
    if (dir) await rm(await dir, { recursive: true, force: true }).catch(() => undefined);
  };

  const fail = async (replica: SimulatedReplica, message: string) => {
    if (replica.timer) clearTimeout(replica.timer);
    replica.timer = undefined;
    release(replica);
    const engine = replica.engine;
    replica.engine = undefined;
    replica.tracker.transition('failed', { message });
    if (engine) await engine.close();
    await removeWorkDir(replica);
    schedule();
  };

  const after = (replica: SimulatedReplica, ms: number, next: () => void) => {
    replica.timer = setTimeout(() => {
      replica.timer = undefined;
      if (!replica.tracker.terminal) next();
    }, ms);
  };

  const failsIn = (replica: SimulatedReplica, phase: ReplicaPhase) =>
    replica.failWith !== undefined && (failures.failIn ?? 'initializing') === phase;

  const advance = (replica: SimulatedReplica) => {
    const { tracker, request } = replica;
    after(replica, delays.schedulingMs, () => {
      if (failsIn(replica, 'pending_scheduling')) return void fail(replica, replica.failWith ?? 'failed');
      const weights = request.weights;
      tracker.transition('downloading', {
        message: weights ? `reading ${weights.files.length} files of ${weights.model} from the blob store` : `downloading ${request.spec.baseModel}`,
      });
      // The files are read while the phase's delay runs; a failure is kept (not thrown) until it ends.
      const download = weights
        ? fetchModelFiles(systemContext('replica-download'), weights).then(
            () => undefined,
            (error: unknown) => `cannot load the weights: ${toGatewayError(error).message}`,
          )
        : Promise.resolve(undefined);
      after(replica, delays.downloadingMs, () => {
        if (failsIn(replica, 'downloading')) return void fail(replica, replica.failWith ?? 'failed');
        void download.then((failure) => {
          if (tracker.terminal) return;
          if (failure !== undefined) return void fail(replica, failure);
          initialize(replica);
        });
      });
    });
  };

  const initialize = (replica: SimulatedReplica) => {
    const { tracker, request } = replica;
    tracker.transition('initializing', { message: 'starting the reference engine' });
    const initStarted = Date.now();
    startReferenceEngine({
      host: options.engine?.host ?? '127.0.0.1',
      modelIds: [servedModelId(request.spec)],
      ...(request.spec.enableAddons ? { lora: { maxLoras: addonCacheSize(request.spec) } } : {}),
      contextLength: replicaContextLength(request.spec),
      ...(options.engine?.speed ? { speed: options.engine.speed } : {}),
      ...(options.engine?.faults ? { faults: options.engine.faults } : {}),
    }).then(
      (engine) => {
        if (tracker.terminal) return void engine.close();
        replica.engine = engine;
        after(replica, Math.max(0, delays.initializingMs - (Date.now() - initStarted)), () => {
          if (failsIn(replica, 'initializing')) return void fail(replica, replica.failWith ?? 'failed');
          tracker.transition('ready', { endpoint: engine.url });
        });
      },
      (error: unknown) => void fail(replica, `the reference engine did not start: ${String(error)}`),
    );
  };

  /** First fit over pending replicas, in start order: a big replica does not block small ones behind it. */
  const schedule = () => {
    for (const replica of replicas.values()) {
      if (replica.allocated || replica.tracker.phase !== 'pending_scheduling' || replica.timer) continue;
      const { acceleratorType, acceleratorCount } = replica.request.spec;
      if (free(acceleratorType) < acceleratorCount) {
        replica.tracker.note(
          `waiting for ${acceleratorCount} × ${acceleratorType} (${free(acceleratorType)} of ${total(acceleratorType)} free)`,
        );
        continue;
      }
      replica.allocated = true;
      used.set(acceleratorType, (used.get(acceleratorType) ?? 0) + acceleratorCount);
      replica.tracker.note(`scheduled on ${acceleratorCount} × ${acceleratorType}`);
      advance(replica);
    }
  };

  const stop = async (replicaId: string) => {
    const replica = replicas.get(replicaId);
    if (!replica) return;
    replicas.delete(replicaId);
    if (replica.timer) clearTimeout(replica.timer);
    replica.timer = undefined;
    release(replica);
    const engine = replica.engine;
    replica.engine = undefined;
    replica.tracker.transition('stopped', { message: 'stopped' });
    if (engine) await engine.close();
    await removeWorkDir(replica);
    schedule();
  };

  const readyEngine = (replicaId: string): { replica: SimulatedReplica; engine: ReferenceEngine } => {
    const replica = replicas.get(replicaId);
    if (!replica) throw notFound(`replica ${replicaId}`);
    if (!replica.engine || replica.tracker.phase !== 'ready') {
      throw failedPrecondition(`replica ${replicaId} is ${replica.tracker.phase}, not ready`, { reason: 'REPLICA_NOT_READY' });
    }
    return { replica, engine: replica.engine };
  };

  const adapters: ReplicaAdapters = {
    async load(ctx, replicaId, adapter) {
      const { replica, engine } = readyEngine(replicaId);
      let path = adapter.name;
      if (adapter.source) {
        replica.workDir ??= mkdtemp(join(tmpdir(), `berth-${replicaId}-`));
        const dir = addonDir(await replica.workDir, adapter.name);
        await rm(dir, { recursive: true, force: true });
        await fetchModelFiles(ctx, adapter.source, dir);
        path = dir;
      }
      await loadEngineAdapter(engine.url, vllmAdapterApi, adapter.name, path);
    },
    async unload(_ctx, replicaId, name) {
      const replica = replicas.get(replicaId);
      if (!replica?.engine) return;
      await unloadEngineAdapter(replica.engine.url, vllmAdapterApi, name);
      if (replica.workDir) await rm(addonDir(await replica.workDir, name), { recursive: true, force: true });
    },
    async loaded(_ctx, replicaId) {
      return listEngineAdapters(readyEngine(replicaId).engine.url, vllmAdapterApi);
    },
  };

  return {
    kind: 'simulated',
    adapters,
    async startReplica(_ctx: RequestContext, request: StartReplicaRequest): Promise<ReplicaHandle> {
      const running = await runningReplica(replicas, request.replicaId, stop);
      if (running) return running;
      let failWith: string | undefined;
      if (failNext > 0) {
        failNext -= 1;
        failWith = 'injected failure (failNextReplicas)';
      } else if (failures.shouldFail) {
        const verdict = failures.shouldFail(request);
        if (verdict) failWith = typeof verdict === 'string' ? verdict : 'injected failure (shouldFail)';
      }
      const tracker = new ReplicaTracker(request.replicaId, request.deployment, request.spec);
      replicas.set(request.replicaId, { tracker, request, failWith, allocated: false, timer: undefined, engine: undefined, workDir: undefined });
      schedule();
      return tracker;
    },
    ...trackedReplicaMethods(replicas, stop),
    injectFailures(next) {
      failures = next;
      failNext = next.failNextReplicas ?? 0;
    },
    setInventory(acceleratorType, count) {
      totals.set(acceleratorType, count);
      schedule();
    },
    capacity: (acceleratorType) => ({ total: total(acceleratorType), used: used.get(acceleratorType) ?? 0 }),
    async crashReplica(replicaId, message = 'the replica crashed') {
      const replica = replicas.get(replicaId);
      if (replica && !replica.tracker.terminal) await fail(replica, message);
    },
    engineOf: (replicaId) => replicas.get(replicaId)?.engine,
  };
}

/** Where a replica keeps an add-on's files: one directory per add-on name under its work directory. */
function addonDir(workDir: string, name: string): string {
  return join(workDir, 'addons', createHash('sha256').update(name).digest('hex').slice(0, 16));
}
