import { Code, toGatewayError } from '../errors/index.js';
import type { DeploymentState } from '../resources/deployments/deployment-schema.js';
import type { DeploymentChange } from '../resources/deployments/deployment-service.js';
import { findRuntime } from '../runtime/accelerator-runtime.js';
import { parseReplicaId, replicaIdFor } from './replica-naming.js';
import { systemContext, type RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';
import type { Provisioner, ReplicaHandle, ReplicaPhaseEvent, ReplicaSpec } from '../ports/provisioner.js';

import {
  isFatalStartError,
  phaseRank,
  servingIndexKey,
  StaleRead,
  type DeploymentReconcilerDependencies,
  type DeploymentView,
  type Managed,
  type TrackedReplica,
  type TrackedReplicaInfo,
} from './reconciler-model.js';
import { deploymentView, trackedReplicas } from './reconciler-views.js';
import { desiredReplicaSpec } from './reconciler-desired-spec.js';
import { applyAutoscaling } from './reconciler-autoscaling.js';
import { syncDeployedModelRecords, writeDeploymentStatus, type StatusChange } from './reconciler-status.js';

export { servingIndexKey } from './reconciler-model.js';
export type { DeploymentReconcilerDependencies, DeploymentView, ServingReplica, TrackedReplicaInfo } from './reconciler-model.js';

/**
 * Drives deployments towards their desired state with the installed runtimes' provisioners.
 *
 * Lifecycle rules:
 * - CREATING → READY once at least one replica of the current generation is ready and all desired replicas
 *   have been started (a deployment scaled to zero is READY with no replicas).
 * - A change of the replica spec (a rollout field, or anything else the spec hashes) starts a new
 *   generation: new replicas start beside the old ones (surge), old replicas that are not ready stop at once,
 *   and ready old ones drain as new ones become ready (old ready kept = desired − new ready). UPDATING → READY
 *   when no old replica is left; a READY deployment that finds old replicas moves to UPDATING itself.
 * - A failed replica is stopped and replaced after a backoff (retryBackoffMs, doubling, capped). After
 *   maxConsecutiveFailures failures with no replica becoming ready in between, and no ready replica left,
 *   the deployment becomes FAILED with `status {code: UNAVAILABLE, message}` and its replicas stop. A
 *   provisioner refusing the spec (INVALID_ARGUMENT, FAILED_PRECONDITION) fails it at once. PATCH or :scale
 *   of a FAILED deployment retries (FAILED → UPDATING).
 * - DELETING: replicas drain and stop, then DELETING → DELETED; records of deployed models go with it.
 * - Removed replicas drain first: they take no new requests and stop once idle or after drainTimeoutMs.
 * - desiredReplicaCount is the autoscaler's (`decideReplicaCount`, applied by reconciler-autoscaling.ts); replicaCount and replicaStats are
 *   written whenever they change. Every write is an etag-checked mutation that re-checks the state it
 *   decided on, and every state change goes through `assertTransition`.
 *
 * Work is event-driven: replica phase changes, deployment and deployed-model changes, finished requests of
 * draining replicas, cold-start requests from routing, plus a periodic pass (pollIntervalMs). Passes of one
 * deployment never overlap. `stop()` ends the loops and leaves replicas running; on `start()` replicas the
 * provisioners still hold are re-adopted (their ids carry generation and index), and those of deployments
 * that no longer exist are stopped.
 */
export class DeploymentReconciler {
  private readonly managed = new Map<string, Managed>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly changeListeners = new Set<(deployment: string) => void>();
  private readonly cleanups: Array<() => void> = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private indexWrite: Promise<void> = Promise.resolve();
  private started = false;
  private stopped = false;

  constructor(private readonly deps: DeploymentReconcilerDependencies) {}

  /** Re-adopts running replicas, subscribes to changes and starts the periodic pass. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const ctx = systemContext('serving-start');
    const { storage, deployments, deployedModels, load, logger } = this.deps;
    const saved = await storage.kv.get(ctx, servingIndexKey);
    if (Array.isArray(saved)) for (const name of saved) if (typeof name === 'string') this.entry(name, false);
    for (const provisioner of new Set(this.deps.runtimes.map((r) => r.provisioner))) {
      let handles: readonly ReplicaHandle[];
      try {
        handles = await provisioner.listReplicas(ctx);
      } catch (error) {
        logger.warn({ err: String(error), provisioner: provisioner.kind }, 'cannot list replicas to re-adopt');
        continue;
      }
      for (const handle of handles) await this.adopt(ctx, provisioner, handle);
    }
    this.persistIndex();
    this.cleanups.push(
      deployments.addObserver({ changed: (_ctx, change) => this.onDeploymentChange(change) }),
      deployedModels.addObserver((_ctx, { record }) => {
        if (typeof record.deployment !== 'string') return;
        this.entry(record.deployment).recordsDirty = true;
        this.reconcileSoon(record.deployment);
      }),
      load.onRelease((deployment, replicaId) => {
        if (this.managed.get(deployment)?.replicas.get(replicaId)?.draining && load.outstanding(replicaId) === 0) this.reconcileSoon(deployment);
      }),
    );
    this.timer = setInterval(() => {
      for (const name of this.managed.keys()) this.reconcileSoon(name);
    }, this.deps.options.pollIntervalMs);
    this.timer.unref?.();
    await Promise.all([...this.managed.keys()].map((name) => this.reconcileNow(name)));
  }

  /** Ends the loops and waits for running passes. Replicas keep running (a provisioner's close stops its own). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    await Promise.allSettled([...this.running.values()]);
    await this.indexWrite;
    for (const m of this.managed.values()) {
      if (m.retryTimer) clearTimeout(m.retryTimer);
      for (const replica of m.replicas.values()) replica.unsubscribe();
    }
    this.changeListeners.clear();
  }

  /** Schedules a pass over one deployment (coalesced with one already running). */
  reconcileSoon(name: string): void {
    if (this.stopped) return;
    this.entry(name);
    if (this.running.has(name)) {
      this.again.add(name);
      return;
    }
    const run = (async () => {
      await Promise.resolve();
      do {
        this.again.delete(name);
        try {
          await this.pass(name);
        } catch (error) {
          if (error instanceof StaleRead) this.again.add(name);
          else this.deps.logger.warn({ err: String(error), deployment: name }, 'reconcile pass failed');
        }
      } while (this.again.has(name) && !this.stopped);
      this.running.delete(name);
    })();
    this.running.set(name, run);
  }

  /** Runs a pass over one deployment now and waits for it (and any pass it coalesced). */
  async reconcileNow(name: string): Promise<void> {
    this.reconcileSoon(name);
    await this.running.get(name);
  }

  /** Routing asks for capacity: a deployment at zero replicas has requests waiting. */
  requestCapacity(name: string): void {
    this.reconcileSoon(name);
  }

  /** The deployment as routing sees it; undefined before the reconciler has read it. */
  view(name: string): DeploymentView | undefined {
    return deploymentView(this.managed.get(name));
  }

  /** Replicas the reconciler tracks for a deployment. */
  replicasOf(name: string): TrackedReplicaInfo[] {
    return trackedReplicas(this.managed.get(name));
  }

  /** Calls `listener` when a deployment's replicas or state change; returns the function that removes it. */
  onChange(listener: (deployment: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => void this.changeListeners.delete(listener);
  }

  private onDeploymentChange(change: DeploymentChange): void {
    const m = this.entry(change.name);
    const state = change.deployment?.state;
    if ((change.kind === 'updated' || change.kind === 'scaled') && state === 'FAILED') m.retryRequested = true;
    if (change.kind === 'undeleted') {
      m.failures = 0;
      m.nextStartAt = 0;
    }
    if (change.deployment) m.data = change.deployment;
    this.reconcileSoon(change.name);
  }

  private emit(name: string): void {
    for (const listener of [...this.changeListeners]) {
      try {
        listener(name);
      } catch {
        // A listener's failure must not stop reconciling.
      }
    }
  }

  private entry(name: string, persist = true): Managed {
    let m = this.managed.get(name);
    if (!m) {
      m = {
        name,
        replicas: new Map(),
        failures: 0,
        lastFailure: undefined,
        nextStartAt: 0,
        retryTimer: undefined,
        autoscaler: {},
        retryRequested: false,
        syncedState: undefined,
        recordsDirty: false,
        data: undefined,
        spec: undefined,
      };
      this.managed.set(name, m);
      if (persist) this.persistIndex();
    }
    return m;
  }

  private forget(m: Managed): void {
    if (m.retryTimer) clearTimeout(m.retryTimer);
    for (const replica of m.replicas.values()) replica.unsubscribe();
    this.managed.delete(m.name);
    this.persistIndex();
    this.emit(m.name);
  }

  private persistIndex(): void {
    if (this.stopped) return;
    const names = [...this.managed.keys()].sort();
    this.indexWrite = this.indexWrite
      .then(() => this.deps.storage.kv.set(systemContext('serving-index'), servingIndexKey, names))
      .then(
        () => undefined,
        (error: unknown) => this.deps.logger.warn({ err: String(error) }, 'cannot save the serving index'),
      );
  }

  private async adopt(ctx: RequestContext, provisioner: Provisioner, handle: ReplicaHandle): Promise<void> {
    const stored = await this.deps.storage.resources.get(ctx, handle.deployment).catch(() => undefined);
    const parsed = parseReplicaId(handle.replicaId, handle.deployment);
    if (!stored || stored.data.state === 'DELETED') {
      this.deps.logger.info({ replica: handle.replicaId, deployment: handle.deployment }, 'stopping an orphaned replica');
      await provisioner.stopReplica(ctx, handle.replicaId).catch((error: unknown) => {
        this.deps.logger.warn({ err: String(error), replica: handle.replicaId }, 'cannot stop an orphaned replica');
      });
      return;
    }
    if (!parsed) {
      this.deps.logger.warn({ replica: handle.replicaId, deployment: handle.deployment }, 'ignoring a replica this gateway did not name');
      return;
    }
    this.track(this.entry(handle.deployment, false), handle, provisioner, parsed.generation, parsed.index);
  }

  private track(m: Managed, handle: ReplicaHandle, provisioner: Provisioner, generation: string, index: number): void {
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
    this.emit(m.name);
  }

  private onPhase(m: Managed, replica: TrackedReplica, event: ReplicaPhaseEvent): void {
    if (event.to === 'ready') m.failures = 0;
    if (event.to === 'failed' && !replica.stopping) {
      m.failures += 1;
      m.lastFailure = event.status.message ?? 'the replica failed';
      const backoff = Math.min(this.deps.options.retryBackoffMs * 2 ** (m.failures - 1), this.deps.options.maxRetryBackoffMs);
      m.nextStartAt = Date.now() + backoff;
      this.deps.logger.warn({ deployment: m.name, replica: event.replicaId, failures: m.failures, message: m.lastFailure }, 'replica failed');
    }
    this.emit(m.name);
    this.reconcileSoon(m.name);
  }

  private untrack(m: Managed, replica: TrackedReplica): void {
    replica.unsubscribe();
    m.replicas.delete(replica.handle.replicaId);
    this.emit(m.name);
  }

  private async stopReplica(ctx: RequestContext, m: Managed, replica: TrackedReplica): Promise<void> {
    replica.stopping = true;
    this.emit(m.name);
    try {
      await replica.provisioner.stopReplica(ctx, replica.handle.replicaId);
      this.untrack(m, replica);
    } catch (error) {
      replica.stopping = false;
      this.deps.logger.warn({ err: String(error), replica: replica.handle.replicaId }, 'cannot stop a replica; will retry');
    }
  }

  private async stopAll(ctx: RequestContext, m: Managed): Promise<void> {
    await Promise.all([...m.replicas.values()].map((replica) => this.stopReplica(ctx, m, replica)));
  }

  /** Takes replicas out of routing; stops each once it has no requests in flight or its drain time is up. */
  private async drain(ctx: RequestContext, m: Managed, replicas: readonly TrackedReplica[]): Promise<void> {
    const now = Date.now();
    await Promise.all(
      replicas.map(async (replica) => {
        if (replica.handle.status().phase !== 'ready') return this.stopReplica(ctx, m, replica);
        if (!replica.draining) {
          replica.draining = true;
          replica.drainDeadline = now + this.deps.options.drainTimeoutMs;
          this.emit(m.name);
          this.scheduleWake(m, this.deps.options.drainTimeoutMs);
        }
        if (this.deps.load.outstanding(replica.handle.replicaId) === 0 || now >= replica.drainDeadline) {
          await this.stopReplica(ctx, m, replica);
        }
      }),
    );
  }

  private scheduleWake(m: Managed, delayMs: number): void {
    if (m.retryTimer || this.stopped) return;
    m.retryTimer = setTimeout(() => {
      m.retryTimer = undefined;
      this.reconcileSoon(m.name);
    }, Math.max(0, delayMs));
    m.retryTimer.unref?.();
  }

  /** Stops failed replicas (releasing their capacity) and forgets stopped ones. */
  private async reapTerminal(ctx: RequestContext, m: Managed): Promise<void> {
    for (const replica of [...m.replicas.values()]) {
      const phase = replica.handle.status().phase;
      if (phase === 'stopped') this.untrack(m, replica);
      else if (phase === 'failed') await this.stopReplica(ctx, m, replica);
    }
  }

  private async pass(name: string): Promise<void> {
    if (this.stopped) return;
    const ctx = systemContext('reconcile');
    const m = this.entry(name);
    await this.reapTerminal(ctx, m);
    const stored = await this.deps.storage.resources.get(ctx, name);
    const data = stored?.data;
    if (data) m.data = data;
    const state = data?.state as DeploymentState | undefined;

    if (!data || state === 'DELETED') {
      await this.stopAll(ctx, m);
      await this.syncRecords(ctx, m, state ?? 'ABSENT');
      if (m.replicas.size === 0) this.forget(m);
      return;
    }
    if (state === 'DELETING') {
      await this.syncRecords(ctx, m, state);
      await this.drain(ctx, m, [...m.replicas.values()]);
      if (m.replicas.size === 0) {
        await this.write(ctx, m, state, { state: 'DELETED' });
        await this.syncRecords(ctx, m, 'DELETED');
        this.forget(m);
      } else {
        await this.write(ctx, m, state, {});
      }
      return;
    }
    if (state === 'FAILED') {
      if (m.retryRequested) {
        m.retryRequested = false;
        m.failures = 0;
        m.nextStartAt = 0;
        await this.write(ctx, m, state, { state: 'UPDATING', status: null });
        this.again.add(name);
        return;
      }
      await this.stopAll(ctx, m);
      await this.write(ctx, m, state, {});
      await this.syncRecords(ctx, m, state);
      return;
    }
    await this.converge(ctx, m, data, state ?? 'STATE_UNSPECIFIED');
  }

  private async converge(ctx: RequestContext, m: Managed, data: JsonObject, state: DeploymentState): Promise<void> {
    const { options } = this.deps;
    let runtime: AcceleratorRuntime;
    try {
      runtime = findRuntime(this.deps.runtimes, String(data.acceleratorType));
    } catch (error) {
      await this.failDeployment(ctx, m, state, Code.INVALID_ARGUMENT, toGatewayError(error).message);
      return;
    }
    const { spec, generation } = await this.specFor(ctx, m, data);
    const desired = await this.autoscale(ctx, m, data, state);

    const isReady = (r: TrackedReplica) => r.handle.status().phase === 'ready' && !r.draining && !r.stopping;
    const live = () => [...m.replicas.values()].filter((r) => !r.stopping);
    const current = () => live().filter((r) => r.generation === generation && !r.draining);

    if (m.failures >= options.maxConsecutiveFailures && !live().some(isReady)) {
      await this.failDeployment(
        ctx,
        m,
        state,
        Code.UNAVAILABLE,
        `${m.failures} replicas failed in a row and none is ready; last failure: ${m.lastFailure ?? 'unknown'}`,
      );
      return;
    }

    await this.drain(ctx, m, live().filter((r) => r.draining));
    const missing = desired - current().length;
    if (missing > 0) {
      if (Date.now() >= m.nextStartAt) {
        const fatal = await this.startReplicas(ctx, m, runtime, spec, generation, missing);
        if (fatal) {
          await this.failDeployment(ctx, m, state, fatal.code, fatal.message);
          return;
        }
      } else {
        this.scheduleWake(m, m.nextStartAt - Date.now());
      }
    } else if (missing < 0) {
      const excess = current()
        .sort((a, b) => phaseRank[a.handle.status().phase] - phaseRank[b.handle.status().phase] || b.index - a.index)
        .slice(0, -missing);
      await this.drain(ctx, m, excess);
    }

    const old = live().filter((r) => r.generation !== generation && !r.draining);
    const readyCurrent = current().filter(isReady).length;
    await this.drain(ctx, m, old.filter((r) => !isReady(r)));
    const keepOldReady = Math.max(0, desired - readyCurrent);
    await this.drain(ctx, m, old.filter(isReady).slice(keepOldReady));

    const oldLeft = [...m.replicas.values()].some((r) => r.generation !== generation);
    const up = current().filter(isReady).length >= Math.min(1, desired) && current().length >= desired;
    let next: DeploymentState = state;
    if (state === 'STATE_UNSPECIFIED') next = 'CREATING';
    else if ((state === 'CREATING' || state === 'UPDATING') && up && !oldLeft) next = 'READY';
    else if (state === 'READY' && oldLeft) next = 'UPDATING';
    await this.write(ctx, m, state, next === state ? {} : { state: next, ...(next === 'READY' ? { status: null } : {}) });
    await this.syncRecords(ctx, m, next);
  }

  /** Starts `count` replicas; returns the error when the provisioner refuses the spec itself. */
  private async startReplicas(
    ctx: RequestContext,
    m: Managed,
    runtime: AcceleratorRuntime,
    spec: ReplicaSpec,
    generation: string,
    count: number,
  ): Promise<{ code: Code; message: string } | undefined> {
    const used = new Set([...m.replicas.values()].filter((r) => r.generation === generation).map((r) => r.index));
    for (let started = 0; started < count && !this.stopped; started += 1) {
      let index = 0;
      while (used.has(index)) index += 1;
      used.add(index);
      const replicaId = replicaIdFor(m.name, generation, index);
      try {
        const handle = await runtime.provisioner.startReplica(ctx, { replicaId, deployment: m.name, spec });
        this.track(m, handle, runtime.provisioner, generation, index);
        this.deps.logger.info({ deployment: m.name, replica: replicaId }, 'replica started');
      } catch (error) {
        const failure = toGatewayError(error);
        if (isFatalStartError(failure.code)) return { code: failure.code, message: failure.message };
        m.failures += 1;
        m.lastFailure = failure.message;
        m.nextStartAt = Date.now() + Math.min(this.deps.options.retryBackoffMs * 2 ** (m.failures - 1), this.deps.options.maxRetryBackoffMs);
        this.scheduleWake(m, m.nextStartAt - Date.now());
        this.deps.logger.warn({ err: failure.message, deployment: m.name }, 'cannot start a replica');
        return undefined;
      }
    }
    return undefined;
  }

  private specFor(ctx: RequestContext, m: Managed, data: JsonObject): Promise<{ spec: ReplicaSpec; generation: string }> {
    return desiredReplicaSpec(ctx, this.deps.storage, m, data);
  }


  private async autoscale(ctx: RequestContext, m: Managed, data: JsonObject, state: DeploymentState): Promise<number> {
    const { desired, redo } = await applyAutoscaling(ctx, this.deps, m, data, state);
    if (redo) this.again.add(m.name);
    return desired;
  }

  private async failDeployment(ctx: RequestContext, m: Managed, state: DeploymentState, code: Code, message: string): Promise<void> {
    await this.stopAll(ctx, m);
    this.deps.logger.warn({ deployment: m.name, code, message }, 'deployment failed');
    await this.write(ctx, m, state, { state: 'FAILED', status: { code, message } });
    await this.syncRecords(ctx, m, 'FAILED');
  }

  /** {@link writeDeploymentStatus}, then announces a state change, or redoes the pass when the deployment is gone. */
  private async write(ctx: RequestContext, m: Managed, expected: DeploymentState, change: StatusChange): Promise<void> {
    const outcome = await writeDeploymentStatus(ctx, this.deps, m, expected, change);
    if (outcome === 'state-changed') this.emit(m.name);
    else if (outcome === 'gone') this.again.add(m.name);
  }

  private async syncRecords(ctx: RequestContext, m: Managed, state: string): Promise<void> {
    await syncDeployedModelRecords(ctx, this.deps, m, state);
  }
}
