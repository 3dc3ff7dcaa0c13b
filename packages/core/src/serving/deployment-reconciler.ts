import { Code, toGatewayError } from '../errors/index.js';
import type { DeploymentState } from '../resources/deployments/deployment-schema.js';
import type { DeploymentChange } from '../resources/deployments/deployment-service.js';
import { findRuntime } from '../runtime/accelerator-runtime.js';
import { systemContext, type RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';
import type { DeploymentReconcilerDependencies, DeploymentView, Managed, TrackedReplicaInfo } from './reconciler-model.js';
import { PassScheduler } from './reconciler-passes.js';
import { ManagedDeployments } from './reconciler-registry.js';
import { ReplicaLifecycle } from './reconciler-replicas.js';
import { rollOut, stateAfterRollout } from './reconciler-rollout.js';
import { exhaustedRetries, failDeployment, noteRetry, reconcileFailed, type FailureSteps } from './reconciler-failure.js';
import { adoptRunningReplicas, finalizeDeletion, releaseGoneDeployment, type DeletionSteps } from './reconciler-deletion.js';
import { deploymentView, trackedReplicas } from './reconciler-views.js';
import { desiredReplicaSpec } from './reconciler-desired-spec.js';
import { applyAutoscaling } from './reconciler-autoscaling.js';
import { syncDeployedModelRecords, writeDeploymentStatus, type StatusChange } from './reconciler-status.js';
import { AddonServing } from './addon-serving.js';
import { noModelFileSources } from './model-file-sources.js';
import { parseResourceName } from '../names/resource-name.js';
import type { AddonReadiness } from '../resources/deployed-models/deployed-model-service.js';

export { servingIndexKey } from './reconciler-model.js';
export type { DeploymentReconcilerDependencies, DeploymentView, ServingReplica, TrackedReplicaInfo } from './reconciler-model.js';

/**
 * Drives deployments towards their desired state with the installed runtimes' provisioners. A pass over a
 * deployment reads it and, by its state, finishes its deletion (reconciler-deletion.ts), keeps it FAILED or
 * retries it (reconciler-failure.ts), or converges it: the replica spec and generation
 * (reconciler-desired-spec.ts), the autoscaler's replica count (reconciler-autoscaling.ts), the replicas
 * started, drained and stopped to match (reconciler-rollout.ts over reconciler-replicas.ts), then the state and
 * replica counts written (reconciler-status.ts) with etag-checked mutations that re-check the state decided on.
 *
 * Work is event-driven: replica phase changes, deployment and deployed-model changes, finished requests of
 * draining replicas, cold-start requests from routing, plus a periodic pass (pollIntervalMs). Passes of one
 * deployment never overlap (reconciler-passes.ts). `stop()` ends the loops and leaves replicas running; on
 * `start()` the replicas the provisioners still run are re-adopted.
 */
export class DeploymentReconciler {
  private readonly cleanups: Array<() => void> = [];
  private readonly passes: PassScheduler;
  private readonly registry: ManagedDeployments;
  private readonly replicas: ReplicaLifecycle;
  private readonly steps: DeletionSteps & FailureSteps;
  /** LoRA add-ons on the replicas of deployments with `enableAddons`. */
  readonly addons: AddonServing;
  private timer: ReturnType<typeof setInterval> | undefined;
  private started = false;
  private stopped = false;

  constructor(private readonly deps: DeploymentReconcilerDependencies) {
    const isStopped = () => this.stopped;
    this.passes = new PassScheduler((name) => this.pass(name), deps.logger, isStopped);
    this.registry = new ManagedDeployments(deps, isStopped);
    this.replicas = new ReplicaLifecycle(deps, { changed: (name) => this.registry.changed(name), reconcileSoon: (name) => this.reconcileSoon(name), isStopped });
    this.addons = new AddonServing({
      storage: deps.storage,
      sources: deps.modelFiles ?? noModelFileSources,
      logger: deps.logger,
      replica: (deployment, replicaId) => this.registry.get(deployment)?.replicas.get(replicaId),
    });
    this.steps = {
      replicas: this.replicas,
      logger: deps.logger,
      write: (ctx, m, expected, change) => this.write(ctx, m, expected, change),
      syncRecords: (ctx, m, state) => syncDeployedModelRecords(ctx, deps, m, state),
      forget: (m) => {
        this.replicas.detach(m);
        this.registry.remove(m.name);
      },
    };
  }

  /** Re-adopts running replicas, subscribes to changes and starts the periodic pass. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const ctx = systemContext('serving-start');
    const { deployments, deployedModels, load } = this.deps;
    await this.registry.loadIndex(ctx);
    await adoptRunningReplicas(ctx, this.deps, (handle, provisioner, { generation, index }) =>
      this.replicas.track(this.registry.entry(handle.deployment, false), handle, provisioner, generation, index),
    );
    this.registry.saveIndex();
    this.cleanups.push(
      deployments.addObserver({ changed: (_ctx, change) => this.onDeploymentChange(change) }),
      deployedModels.addObserver((_ctx, { record }) => {
        if (typeof record.deployment !== 'string') return;
        this.registry.entry(record.deployment).recordsDirty = true;
        this.reconcileSoon(record.deployment);
      }),
      load.onRelease((deployment, replicaId) => {
        if (this.registry.get(deployment)?.replicas.get(replicaId)?.draining && load.outstanding(replicaId) === 0) this.reconcileSoon(deployment);
      }),
    );
    this.timer = setInterval(() => {
      for (const name of this.registry.names()) this.reconcileSoon(name);
    }, this.deps.options.pollIntervalMs);
    this.timer.unref?.();
    await Promise.all(this.registry.names().map((name) => this.reconcileNow(name)));
  }

  /** Ends the loops and waits for running passes. Replicas keep running (a provisioner's close stops its own). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    await this.passes.allIdle();
    await this.registry.saved();
    for (const m of this.registry.all()) this.replicas.detach(m);
    this.registry.removeListeners();
  }

  /** Schedules a pass over one deployment (coalesced with one already running). */
  reconcileSoon(name: string): void {
    if (this.stopped) return;
    this.registry.entry(name);
    this.passes.schedule(name);
  }

  /** Runs a pass over one deployment now and waits for it (and any pass it coalesced). */
  async reconcileNow(name: string): Promise<void> {
    this.reconcileSoon(name);
    await this.passes.idle(name);
  }

  /** Routing asks for capacity: a deployment at zero replicas has requests waiting. */
  requestCapacity(name: string): void {
    this.reconcileSoon(name);
  }

  /** The deployment as routing sees it; undefined before the reconciler has read it. */
  view(name: string): DeploymentView | undefined {
    return deploymentView(this.registry.get(name));
  }

  /** Replicas the reconciler tracks for a deployment. */
  replicasOf(name: string): TrackedReplicaInfo[] {
    return trackedReplicas(this.registry.get(name));
  }

  /** Calls `listener` when a deployment's replicas or state change; returns the function that removes it. */
  onChange(listener: (deployment: string) => void): () => void {
    return this.registry.onChange(listener);
  }

  private onDeploymentChange(change: DeploymentChange): void {
    const m = this.registry.entry(change.name);
    noteRetry(m, change);
    if (change.deployment) m.data = change.deployment;
    this.reconcileSoon(change.name);
  }

  private async pass(name: string): Promise<void> {
    if (this.stopped) return;
    const ctx = systemContext('reconcile');
    const m = this.registry.entry(name);
    await this.replicas.reapTerminal(ctx, m);
    const stored = await this.deps.storage.resources.get(ctx, name);
    const data = stored?.data;
    if (data) m.data = data;
    const state = data?.state as DeploymentState | undefined;

    if (!data || state === 'DELETED') return releaseGoneDeployment(ctx, this.steps, m, state ?? 'ABSENT');
    if (state === 'DELETING') return finalizeDeletion(ctx, this.steps, m);
    if (state === 'FAILED') {
      if (await reconcileFailed(ctx, this.steps, m)) this.passes.repeat(name);
      return;
    }
    await this.converge(ctx, m, data, state ?? 'STATE_UNSPECIFIED');
  }

  private async converge(ctx: RequestContext, m: Managed, data: JsonObject, state: DeploymentState): Promise<void> {
    let runtime: AcceleratorRuntime;
    try {
      runtime = findRuntime(this.deps.runtimes, String(data.acceleratorType));
    } catch (error) {
      return failDeployment(ctx, this.steps, m, state, { code: Code.INVALID_ARGUMENT, message: toGatewayError(error).message });
    }
    const { spec, generation, weights } = await desiredReplicaSpec(ctx, this.deps.storage, this.deps.modelFiles ?? noModelFileSources, m, data);
    const { desired, redo } = await applyAutoscaling(ctx, this.deps, m, data, state);
    if (redo) this.passes.repeat(m.name);

    const exhausted = exhaustedRetries(m, this.deps.options.maxConsecutiveFailures);
    if (exhausted) return failDeployment(ctx, this.steps, m, state, { code: Code.UNAVAILABLE, message: exhausted });
    const refused = await rollOut(ctx, this.replicas, m, { runtime, spec, generation, desired, ...(weights ? { weights } : {}) });
    if (refused) return failDeployment(ctx, this.steps, m, state, refused);

    const next = stateAfterRollout(m, generation, desired, state);
    await this.write(ctx, m, state, next === state ? {} : { state: next, ...(next === 'READY' ? { status: null } : {}) });
    await syncDeployedModelRecords(ctx, this.deps, m, next, await this.reconcileAddons(ctx, m, data));
  }

  /** The add-on step of a pass (deployments with `enableAddons`): see {@link AddonServing.reconcile}. */
  private async reconcileAddons(ctx: RequestContext, m: Managed, data: JsonObject): Promise<ReadonlyMap<string, AddonReadiness> | undefined> {
    if (data.enableAddons !== true) return undefined;
    try {
      const { accountId } = parseResourceName(m.name, 'deployments');
      const records = await this.deps.deployedModels.recordsOf(ctx, accountId, { deployment: m.name });
      return await this.addons.reconcile(ctx, m, String(data.baseModel), records);
    } catch (error) {
      this.deps.logger.warn({ err: String(error), deployment: m.name }, 'cannot reconcile add-ons');
      return new Map();
    }
  }

  /** {@link writeDeploymentStatus}, then announces a state change, or redoes the pass when the deployment is gone. */
  private async write(ctx: RequestContext, m: Managed, expected: DeploymentState, change: StatusChange): Promise<void> {
    const outcome = await writeDeploymentStatus(ctx, this.deps, m, expected, change);
    if (outcome === 'state-changed') this.registry.changed(m.name);
    else if (outcome === 'gone') this.passes.repeat(m.name);
  }
}
