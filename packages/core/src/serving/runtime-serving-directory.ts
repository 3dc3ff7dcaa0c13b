import { createHash } from 'node:crypto';
import { Code, GatewayError, failedPrecondition, invalidArgument, notFound, permissionDenied, unavailable } from '../errors/index.js';
import { authorize } from '../auth/permissions.js';
import { parseFilter } from '../listing/index.js';
import { parseOrderBy } from '../listing/order-by.js';
import { parseResourceName } from '../names/resource-name.js';
import type { Storage } from '../ports/storage.js';
import type { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import { deploymentFields } from '../resources/deployments/deployment-fields.js';
import type { DeploymentState } from '../resources/deployments/deployment-schema.js';
import type { DeploymentReconciler, ServingReplica } from './deployment-reconciler.js';
import type { ServingLoad } from './serving-load.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import type { ModelFacts, ModelTarget, ReplicaLease, ResolveOptions, ServingDirectory } from '../ports/serving-directory.js';
import { replicaContextLength } from '../runtime/replica-spec.js';
import { replicaSpecOf } from './replica-naming.js';

export interface RuntimeServingDirectoryOptions {
  /** Requests that may wait for a replica of one deployment at once. */
  readonly maxWaitersPerDeployment: number;
  /** How long a request waits for a replica. */
  readonly maxWaitMs: number;
  /** False when no runtime plugin is installed: nothing can start a replica, so acquire fails at once. */
  readonly runtimesInstalled?: boolean;
}

interface Waiter {
  readonly target: ModelTarget;
  readonly affinityKey: string | undefined;
  /** Tries to lease; true when the waiter is settled (leased or rejected). */
  attempt(): boolean;
}

/** Deployment states that never serve; a request for one is FAILED_PRECONDITION. */
const closedStates: ReadonlySet<string> = new Set(['FAILED', 'DELETING', 'DELETED']);
const byCreateTime = parseOrderBy(undefined, deploymentFields, 'create_time');

function score(key: string, replicaId: string): bigint {
  return createHash('sha256').update(`${key}\u0000${replicaId}`).digest().readBigUInt64BE(0);
}

/**
 * The serving directory over the deployment reconciler.
 *
 * `resolve` accepts `accounts/a/models/m`, `accounts/a/models/m#accounts/a/deployments/d` and
 * `accounts/a/models/m#d`. Without a suffix the model's default deployed-model record is used (else its
 * oldest live one); a base model without records falls back to the oldest deployment of it that is not
 * failed or deleted. The caller needs `inference.use` in the model's account; a public model may be used
 * from any account.
 *
 * `acquire` leases the ready replica with the fewest requests in flight (ties rotate), or, when the deployment
 * enables session affinity and an affinity key is given, the replica chosen by rendezvous hashing of the key
 * over the ready replicas (a key moves only when its replica goes away). With no ready replica the request
 * asks the reconciler for capacity and waits in a bounded FIFO queue. A request for a LoRA add-on then pins
 * the add-on on its replica (loading it there first when it is not loaded: see `AddonServing`) until the
 * lease is released.
 */
export class RuntimeServingDirectory implements ServingDirectory {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private rotation = 0;
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly reconciler: DeploymentReconciler,
    private readonly load: ServingLoad,
    private readonly storage: Storage,
    private readonly deployedModels: DeployedModelService,
    private readonly options: RuntimeServingDirectoryOptions,
  ) {
    this.unsubscribe = reconciler.onChange((deployment) => this.wake(deployment));
  }

  /** Rejects every waiting request (UNAVAILABLE) and stops listening. */
  close(): void {
    this.closed = true;
    this.unsubscribe();
    for (const waiters of this.waiters.values()) for (const waiter of [...waiters]) waiter.attempt();
  }

  async resolve(ctx: RequestContext, model: string, options: ResolveOptions = {}): Promise<ModelTarget> {
    const hash = model.indexOf('#');
    const modelName = hash < 0 ? model : model.slice(0, hash);
    const suffix = hash < 0 ? undefined : model.slice(hash + 1);
    const { accountId } = parseResourceName(modelName, 'models', 'model');
    const modelRecord = (await this.storage.resources.get(ctx, modelName))?.data;
    this.authorizeModel(ctx, accountId, modelRecord);
    if (!modelRecord) throw notFound(modelName);

    let deploymentName: string;
    let deployment: JsonObject | undefined;
    let deployedModel: string | undefined;
    if (suffix !== undefined) {
      deploymentName = suffix.includes('/') ? suffix : `accounts/${accountId}/deployments/${suffix}`;
      const parsed = parseResourceName(deploymentName, 'deployments', 'model');
      if (parsed.accountId !== accountId) {
        throw invalidArgument(`deployment ${deploymentName} is not in the model's account accounts/${accountId}`, { field: 'model' });
      }
      deployment = (await this.storage.resources.get(ctx, deploymentName))?.data;
      if (!deployment) throw notFound(deploymentName);
      const record = (await this.deployedModels.recordsOf(ctx, accountId, { model: modelName, deployment: deploymentName })).find(
        (r) => r.state !== 'UNDEPLOYING',
      );
      if (!record && deployment.baseModel !== modelName) {
        throw new GatewayError(Code.NOT_FOUND, `model ${modelName} is not deployed to ${deploymentName}`, { reason: 'NOT_DEPLOYED', field: 'model' });
      }
      deployedModel = record ? String(record.name) : undefined;
      this.assertServes(deployment);
    } else {
      const records = (await this.deployedModels.recordsOf(ctx, accountId, { model: modelName })).filter((r) => r.state !== 'UNDEPLOYING');
      const record = records.find((r) => r.default === true) ?? records[0];
      if (record) {
        deploymentName = String(record.deployment);
        deployedModel = String(record.name);
        deployment = (await this.storage.resources.get(ctx, deploymentName))?.data;
        if (!deployment) throw notFound(deploymentName);
        this.assertServes(deployment);
      } else {
        deployment = await this.deploymentOfBaseModel(ctx, accountId, modelName);
        if (!deployment) {
          throw new GatewayError(Code.NOT_FOUND, `model ${modelName} is not deployed`, { reason: 'NOT_DEPLOYED', field: 'model' });
        }
        deploymentName = String(deployment.name);
      }
    }
    const target: ModelTarget = { accountId, model: modelName, deployment: deploymentName, ...(deployedModel ? { deployedModel } : {}) };
    return options.facts === true ? { ...target, facts: await this.factsOf(ctx, modelName, modelRecord, deployment) } : target;
  }

  /**
   * A model's facts on a deployment, from the records `resolve` read (and an add-on's base model): the
   * context length the replicas run with (the reconciler's replica spec of the deployment), image support
   * from the model, else from its base model.
   */
  private async factsOf(ctx: RequestContext, modelName: string, model: JsonObject, deployment: JsonObject): Promise<ModelFacts> {
    const baseName = String(deployment.baseModel);
    const base = baseName === modelName ? model : (await this.storage.resources.get(ctx, baseName))?.data;
    return {
      contextLength: replicaContextLength(replicaSpecOf(deployment, base)),
      supportsImageInput: typeof model.supportsImageInput === 'boolean' ? model.supportsImageInput : base?.supportsImageInput === true,
    };
  }

  async acquire(ctx: RequestContext, target: ModelTarget, options: { affinityKey?: string } = {}): Promise<ReplicaLease> {
    const leased = await this.acquireReplica(ctx, target, options);
    return leased.addon ? this.withAddon(ctx, target, leased.lease) : leased.lease;
  }

  /**
   * Pins the add-on a lease's request uses on its replica (loading it there first when needed; the request
   * waits meanwhile); the lease's release unpins it. A load that fails releases the lease and throws.
   */
  private async withAddon(ctx: RequestContext, target: ModelTarget, lease: ReplicaLease): Promise<ReplicaLease> {
    let unpin: (() => void) | undefined;
    try {
      unpin = await this.reconciler.addons.use(ctx, target.deployment, lease.replicaId, target.model);
    } catch (error) {
      lease.release();
      throw error;
    }
    if (!unpin) return lease;
    const done = unpin;
    return {
      ...lease,
      release: () => {
        done();
        lease.release();
      },
    };
  }

  private async acquireReplica(ctx: RequestContext, target: ModelTarget, options: { affinityKey?: string }): Promise<Leased> {
    if (ctx.signal?.aborted) throw cancelled(target.deployment);
    if (this.options.runtimesInstalled === false) {
      throw unavailable(`no accelerator runtime plugin is installed, so ${target.deployment} has no replicas`, { reason: 'NO_RUNTIME' });
    }
    const leased = this.tryLease(target, options.affinityKey);
    if (leased) return leased;
    this.assertOpen(target.deployment);
    if (this.closed) throw unavailable('the gateway is stopping');
    const queue = this.waiters.get(target.deployment) ?? new Set<Waiter>();
    if (queue.size >= this.options.maxWaitersPerDeployment) {
      throw unavailable(`${queue.size} requests are already waiting for a replica of ${target.deployment}; retry later`, {
        reason: 'QUEUE_FULL',
      });
    }
    this.waiters.set(target.deployment, queue);
    const endWait = this.load.beginWait(target.deployment);
    const waitMs = ctx.deadline !== undefined ? Math.min(this.options.maxWaitMs, Math.max(0, ctx.deadline - Date.now())) : this.options.maxWaitMs;
    const deadlineBound = ctx.deadline !== undefined && waitMs < this.options.maxWaitMs;
    try {
      return await new Promise<Leased>((resolve, reject) => {
        let settled = false;
        const finish = (outcome: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          ctx.signal?.removeEventListener('abort', onAbort);
          queue.delete(waiter);
          if (queue.size === 0 && this.waiters.get(target.deployment) === queue) this.waiters.delete(target.deployment);
          outcome();
        };
        const onAbort = () => finish(() => reject(cancelled(target.deployment)));
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(
                deadlineBound
                  ? new GatewayError(Code.DEADLINE_EXCEEDED, `the request deadline passed while waiting for a replica of ${target.deployment}`)
                  : unavailable(`no replica of ${target.deployment} became ready within ${this.options.maxWaitMs} ms`, { reason: 'NO_READY_REPLICA' }),
              ),
            ),
          waitMs,
        );
        const waiter: Waiter = {
          target,
          affinityKey: options.affinityKey,
          attempt: () => {
            if (settled) return true;
            if (this.closed) {
              finish(() => reject(unavailable('the gateway is stopping')));
              return true;
            }
            try {
              this.assertOpen(target.deployment);
            } catch (error) {
              finish(() => reject(error));
              return true;
            }
            const lease = this.tryLease(target, options.affinityKey);
            if (!lease) return false;
            finish(() => resolve(lease));
            return true;
          },
        };
        queue.add(waiter);
        ctx.signal?.addEventListener('abort', onAbort, { once: true });
        this.reconciler.requestCapacity(target.deployment);
      });
    } finally {
      endWait();
    }
  }

  /** Waiting requests of a deployment. */
  waiting(deployment: string): number {
    return this.waiters.get(deployment)?.size ?? 0;
  }

  private wake(deployment: string): void {
    const queue = this.waiters.get(deployment);
    if (!queue) return;
    for (const waiter of [...queue]) waiter.attempt();
  }

  private authorizeModel(ctx: RequestContext, accountId: string, model: JsonObject | undefined): void {
    const principal = ctx.principal;
    if (principal && principal.accountId !== accountId) {
      if (model?.public === true) return;
      throw permissionDenied(`permission denied on accounts/${accountId}`);
    }
    authorize(ctx, 'inference.use', { accountId });
  }

  private assertServes(deployment: JsonObject): void {
    const state = String(deployment.state);
    if (closedStates.has(state)) {
      throw failedPrecondition(`deployment ${String(deployment.name)} is ${state} and does not serve requests`, { reason: 'DEPLOYMENT_NOT_SERVING' });
    }
  }

  private assertOpen(deployment: string): void {
    const state = this.reconciler.view(deployment)?.state;
    if (state !== undefined && closedStates.has(state)) {
      throw failedPrecondition(`deployment ${deployment} is ${state} and does not serve requests`, { reason: 'DEPLOYMENT_NOT_SERVING' });
    }
  }

  private async deploymentOfBaseModel(ctx: RequestContext, accountId: string, modelName: string): Promise<JsonObject | undefined> {
    const filter = parseFilter(`base_model = ${JSON.stringify(modelName)}`, deploymentFields);
    const result = await this.storage.resources.list(ctx, {
      parent: `accounts/${accountId}`,
      collection: 'deployments',
      ...(filter ? { filter } : {}),
      orderBy: byCreateTime,
      pageSize: 200,
    });
    const candidates = result.items.map((item) => item.data).filter((d) => !closedStates.has(String(d.state)));
    const serving = (d: JsonObject) => (['READY', 'UPDATING'] as DeploymentState[]).includes(d.state as DeploymentState);
    return candidates.find(serving) ?? candidates[0];
  }

  private tryLease(target: ModelTarget, affinityKey: string | undefined): Leased | undefined {
    const view = this.reconciler.view(target.deployment);
    if (!view || view.ready.length === 0) return undefined;
    const replica = view.enableSessionAffinity && affinityKey ? this.sticky(view.ready, affinityKey) : this.leastOutstanding(view.ready);
    const release = this.load.beginRequest(target.deployment, replica.replicaId);
    // An add-on is served by its base model's engine under its own name.
    const addon = target.deployedModel !== undefined && target.model !== replica.servedModelId;
    return {
      addon,
      lease: {
        replicaId: replica.replicaId,
        deployment: target.deployment,
        endpoint: replica.endpoint,
        servedModelId: addon ? target.model : replica.servedModelId,
        release,
      },
    };
  }

  private leastOutstanding(ready: readonly ServingReplica[]): ServingReplica {
    this.rotation = (this.rotation + 1) % 1_000_000;
    let best: ServingReplica | undefined;
    let bestLoad = Number.POSITIVE_INFINITY;
    for (let i = 0; i < ready.length; i += 1) {
      const replica = ready[(i + this.rotation) % ready.length]!;
      const outstanding = this.load.outstanding(replica.replicaId);
      if (outstanding < bestLoad) {
        best = replica;
        bestLoad = outstanding;
      }
    }
    return best!;
  }

  private sticky(ready: readonly ServingReplica[], key: string): ServingReplica {
    let best = ready[0]!;
    let bestScore = -1n;
    for (const replica of ready) {
      const s = score(key, replica.replicaId);
      if (s > bestScore) {
        best = replica;
        bestScore = s;
      }
    }
    return best;
  }
}

/** A lease, and whether its request is for an add-on of the replica's base model. */
interface Leased {
  readonly lease: ReplicaLease;
  readonly addon: boolean;
}

function cancelled(deployment: string): GatewayError {
  return new GatewayError(Code.CANCELLED, `the request was cancelled while waiting for a replica of ${deployment}`);
}
