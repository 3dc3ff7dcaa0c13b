import { startReferenceEngine, type EngineFaults, type EngineSpeed, type ReferenceEngine } from '../engine/reference-engine.js';
import { ReplicaTracker } from './replica-tracker.js';
import { runningReplica, trackedReplicaMethods } from './tracked-replicas.js';
import { replicaContextLength, servedModelId } from './replica-spec.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { Provisioner, ReplicaHandle, ReplicaPhase, StartReplicaRequest } from '../ports/provisioner.js';

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
 * loopback port. Test hooks change capacity, inject failures and crash replicas.
 */
export interface SimulatedProvisioner extends Provisioner {
  readonly kind: 'simulated';
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

  const fail = async (replica: SimulatedReplica, message: string) => {
    if (replica.timer) clearTimeout(replica.timer);
    replica.timer = undefined;
    release(replica);
    const engine = replica.engine;
    replica.engine = undefined;
    replica.tracker.transition('failed', { message });
    if (engine) await engine.close();
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
      tracker.transition('downloading', { message: `downloading ${request.spec.baseModel}` });
      after(replica, delays.downloadingMs, () => {
        if (failsIn(replica, 'downloading')) return void fail(replica, replica.failWith ?? 'failed');
        tracker.transition('initializing', { message: 'starting the reference engine' });
        const initStarted = Date.now();
        startReferenceEngine({
          host: options.engine?.host ?? '127.0.0.1',
          modelIds: [servedModelId(request.spec)],
          acceptUnknownModels: Boolean(request.spec.enableAddons),
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
      });
    });
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
    schedule();
  };

  return {
    kind: 'simulated',
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
      replicas.set(request.replicaId, { tracker, request, failWith, allocated: false, timer: undefined, engine: undefined });
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
