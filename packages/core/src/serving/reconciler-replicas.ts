import { toGatewayError } from '../errors/index.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';
import type { Provisioner, ReplicaHandle, ReplicaPhaseEvent, ReplicaSpec } from '../ports/provisioner.js';
import type { ModelFileSource } from '../ports/model-files.js';
import { replicaIdFor } from './replica-naming.js';
import { isFatalStartError, type DeploymentReconcilerDependencies, type FailureStatus, type Managed, type TrackedReplica } from './reconciler-model.js';

/** What the replica lifecycle needs of the reconciler that owns it. */
export interface ReplicaLifecycleHost {
  /** A deployment's replicas changed (routing and `onChange` listeners re-read them). */
  changed(deployment: string): void;
  /** Asks for a pass over a deployment: a replica changed phase, or a wait is over. */
  reconcileSoon(deployment: string): void;
  /** True once the reconciler stopped: no replica starts and no timer is set any more. */
  isStopped(): boolean;
}

/**
 * The replicas of the deployments a reconciler manages, from start to stop:
 * - started replicas are named by generation and index (`replicaIdFor`), filling the lowest free index;
 * - their phase changes are followed: a ready replica resets the failure count, a failed one (that the
 *   reconciler did not stop) counts as a failure and delays the next start by `retryBackoffMs`, doubling
 *   with each failure in a row, capped at `maxRetryBackoffMs`;
 * - removed replicas drain first: they take no new requests and stop once idle or after `drainTimeoutMs`
 *   (a replica that is not ready stops at once);
 * - failed replicas are stopped (releasing their capacity) and stopped ones forgotten.
 * A stop that fails leaves the replica tracked, and the next pass tries again.
 */
export class ReplicaLifecycle {
  constructor(
    private readonly deps: Pick<DeploymentReconcilerDependencies, 'options' | 'load' | 'logger'>,
    private readonly host: ReplicaLifecycleHost,
  ) {}

  /** Follows a started or re-adopted replica (once: a replica already tracked is left as it is). */
  track(m: Managed, handle: ReplicaHandle, provisioner: Provisioner, generation: string, index: number): void {
    if (m.replicas.has(handle.replicaId)) return;
    const tracked: TrackedReplica = {
      handle,
      provisioner,
      generation,
      index,
      unsubscribe: () => {},
      draining: false,
      drainDeadline: 0,
      stopping: false,
    };
    tracked.unsubscribe = handle.onPhase((event) => this.onPhase(m, tracked, event));
    m.replicas.set(handle.replicaId, tracked);
    this.host.changed(m.name);
  }

  /**
   * Starts `count` replicas of a generation. A start the provisioner fails for a passing reason counts as a
   * failure (with its backoff) and ends the batch; returns the error when the provisioner refuses the spec itself.
   */
  async startReplicas(
    ctx: RequestContext,
    m: Managed,
    runtime: AcceleratorRuntime,
    spec: ReplicaSpec,
    generation: string,
    count: number,
    weights?: ModelFileSource,
  ): Promise<FailureStatus | undefined> {
    const used = new Set([...m.replicas.values()].filter((r) => r.generation === generation).map((r) => r.index));
    for (let started = 0; started < count && !this.host.isStopped(); started += 1) {
      let index = 0;
      while (used.has(index)) index += 1;
      used.add(index);
      const replicaId = replicaIdFor(m.name, generation, index);
      try {
        const handle = await runtime.provisioner.startReplica(ctx, { replicaId, deployment: m.name, spec, ...(weights ? { weights } : {}) });
        this.track(m, handle, runtime.provisioner, generation, index);
        this.deps.logger.info({ deployment: m.name, replica: replicaId }, 'replica started');
      } catch (error) {
        const failure = toGatewayError(error);
        if (isFatalStartError(failure.code)) return { code: failure.code, message: failure.message };
        this.countFailure(m, failure.message);
        this.wakeAfter(m, m.nextStartAt - Date.now());
        this.deps.logger.warn({ err: failure.message, deployment: m.name }, 'cannot start a replica');
        return undefined;
      }
    }
    return undefined;
  }

  /** Stops a replica and forgets it; if the provisioner fails, the replica stays tracked for the next pass. */
  async stopReplica(ctx: RequestContext, m: Managed, replica: TrackedReplica): Promise<void> {
    replica.stopping = true;
    this.host.changed(m.name);
    try {
      await replica.provisioner.stopReplica(ctx, replica.handle.replicaId);
      this.untrack(m, replica);
    } catch (error) {
      replica.stopping = false;
      this.deps.logger.warn({ err: String(error), replica: replica.handle.replicaId }, 'cannot stop a replica; will retry');
    }
  }

  /** Stops every replica of a deployment at once, without draining. */
  async stopAll(ctx: RequestContext, m: Managed): Promise<void> {
    await Promise.all([...m.replicas.values()].map((replica) => this.stopReplica(ctx, m, replica)));
  }

  /** Takes replicas out of routing; stops each once it has no requests in flight or its drain time is up. */
  async drain(ctx: RequestContext, m: Managed, replicas: readonly TrackedReplica[]): Promise<void> {
    const now = Date.now();
    await Promise.all(
      replicas.map(async (replica) => {
        if (replica.handle.status().phase !== 'ready') return this.stopReplica(ctx, m, replica);
        if (!replica.draining) {
          replica.draining = true;
          replica.drainDeadline = now + this.deps.options.drainTimeoutMs;
          this.host.changed(m.name);
          this.wakeAfter(m, this.deps.options.drainTimeoutMs);
        }
        if (this.deps.load.outstanding(replica.handle.replicaId) === 0 || now >= replica.drainDeadline) {
          await this.stopReplica(ctx, m, replica);
        } else {
          // Still busy and in time: make sure a pass comes at the deadline. The wake set when draining
          // began may have fired already (a timer can fire a millisecond before the wall-clock deadline).
          this.wakeAfter(m, replica.drainDeadline - now + 1);
        }
      }),
    );
  }

  /** Stops failed replicas (releasing their capacity) and forgets stopped ones. */
  async reapTerminal(ctx: RequestContext, m: Managed): Promise<void> {
    for (const replica of [...m.replicas.values()]) {
      const phase = replica.handle.status().phase;
      if (phase === 'stopped') this.untrack(m, replica);
      else if (phase === 'failed') await this.stopReplica(ctx, m, replica);
    }
  }

  /** Asks for a pass over the deployment after `delayMs`, unless a wake is already set (one per deployment). */
  wakeAfter(m: Managed, delayMs: number): void {
    if (m.retryTimer || this.host.isStopped()) return;
    m.retryTimer = setTimeout(() => {
      m.retryTimer = undefined;
      this.host.reconcileSoon(m.name);
    }, Math.max(0, delayMs));
    m.retryTimer.unref?.();
  }

  /** Stops following a deployment's replicas (they keep running) and clears its wake. */
  detach(m: Managed): void {
    if (m.retryTimer) clearTimeout(m.retryTimer);
    for (const replica of m.replicas.values()) replica.unsubscribe();
  }

  private onPhase(m: Managed, replica: TrackedReplica, event: ReplicaPhaseEvent): void {
    if (event.to === 'ready') m.failures = 0;
    if (event.to === 'failed' && !replica.stopping) {
      this.countFailure(m, event.status.message ?? 'the replica failed');
      this.deps.logger.warn({ deployment: m.name, replica: event.replicaId, failures: m.failures, message: m.lastFailure }, 'replica failed');
    }
    this.host.changed(m.name);
    this.host.reconcileSoon(m.name);
  }

  /** One more failure in a row: the next start waits `retryBackoffMs`, doubled per failure, capped. */
  private countFailure(m: Managed, message: string): void {
    m.failures += 1;
    m.lastFailure = message;
    m.nextStartAt = Date.now() + Math.min(this.deps.options.retryBackoffMs * 2 ** (m.failures - 1), this.deps.options.maxRetryBackoffMs);
  }

  private untrack(m: Managed, replica: TrackedReplica): void {
    replica.unsubscribe();
    m.replicas.delete(replica.handle.replicaId);
    this.host.changed(m.name);
  }
}
