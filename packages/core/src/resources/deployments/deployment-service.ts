import { invalidArgument, notFound } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { ResourceService, type ListPage, type ListParams, type PreconditionOptions } from '../common/resource-service.js';
import type { GatewaySecrets } from '../common/secrets.js';
import type { ServingAdvisor } from '../common/sizing.js';
import { assertTransition } from '../common/state-machine.js';
import { deploymentDefinition, noRuntimeStatus } from './deployment-definition.js';
import type { Deployment, DeploymentState } from './deployment-schema.js';
import { deploymentStateMachine } from './deployment-state-machine.js';
import { isPurged, purgeJobFor } from './deployment-purge.js';
import { replicaBounds } from './deployment-rules.js';

export interface DeploymentCreateOptions {
  readonly deploymentId?: string;
  readonly validateOnly?: boolean;
  readonly skipShapeValidation?: boolean;
}

export interface DeploymentDeleteOptions extends PreconditionOptions {
  /** Remove the record instead of soft-deleting it. */
  readonly hard?: boolean;
  /** Delete even when the deployment is in use. */
  readonly ignoreChecks?: boolean;
}

export interface DeploymentListParams extends ListParams {
  readonly showDeleted?: boolean;
}

/**
 * Decides whether a deployment may be deleted now; the runtime layer binds one that knows about
 * recent traffic. Throws FAILED_PRECONDITION to refuse.
 */
export interface DeploymentDeletionGuard {
  check(ctx: RequestContext, deployment: Deployment, options: DeploymentDeleteOptions): Promise<void>;
}

/** What changed in a deployment; observers (deployed models, the serving reconciler) react to it. */
export interface DeploymentChange {
  readonly kind: 'created' | 'updated' | 'scaled' | 'deleted' | 'undeleted';
  readonly name: string;
  /** The deployment after the change; absent after a hard delete. */
  readonly deployment?: Deployment;
}

/**
 * Told after every successful create, update, scale, delete and undelete (never for validateOnly). Runs
 * before the call answers; an observer that throws is ignored, so it must report its own failures.
 */
export interface DeploymentObserver {
  changed(ctx: RequestContext, change: DeploymentChange): Promise<void> | void;
}

/** How long a soft-deleted deployment can be restored with :undelete before it is purged. */
export const softDeleteRetentionMs = 7 * 24 * 3600 * 1000;

/** What a {@link DeploymentService} is built with besides its environment. */
export interface DeploymentServiceOptions {
  readonly advisor: ServingAdvisor;
  /** In-use checks a delete must pass unless `ignoreChecks` (e.g. recent traffic). */
  readonly deletionGuards?: readonly DeploymentDeletionGuard[];
  /** Told after every change, before the call answers. */
  readonly observers?: readonly DeploymentObserver[];
  /**
   * With a runtime reconciler installed, a soft delete moves the deployment to DELETING and the reconciler
   * moves it to DELETED once its replicas are stopped. Without one (the default) it goes straight to DELETED.
   */
  readonly reconciledDeletion?: boolean;
  /**
   * False when no runtime plugin is installed: a created or restored deployment stays CREATING with
   * {@link noRuntimeStatus} saying which plugin to add. Default true.
   */
  readonly runtimesInstalled?: boolean;
}

export class DeploymentService {
  readonly resources: ResourceService<Deployment>;
  private readonly guards: readonly DeploymentDeletionGuard[];
  private readonly observers = new Set<DeploymentObserver>();
  private readonly reconciledDeletion: boolean;
  private readonly runtimesInstalled: boolean;

  constructor(private readonly env: ResourceEnvironment, secrets: GatewaySecrets, options: DeploymentServiceOptions) {
    this.runtimesInstalled = options.runtimesInstalled ?? true;
    this.resources = new ResourceService(deploymentDefinition(options.advisor, { runtimesInstalled: this.runtimesInstalled }), env, secrets);
    this.guards = options.deletionGuards ?? [];
    for (const observer of options.observers ?? []) this.observers.add(observer);
    this.reconciledDeletion = options.reconciledDeletion ?? false;
  }

  /**
   * Subscribes a component that starts later (the reconciler, the change feed) to deployment changes;
   * returns the function that unsubscribes it. Observers known at assembly are contributed to
   * `deploymentObserversToken` instead.
   */
  addObserver(observer: DeploymentObserver): () => void {
    this.observers.add(observer);
    return () => void this.observers.delete(observer);
  }

  async create(ctx: RequestContext, accountId: string, body: unknown, options: DeploymentCreateOptions = {}): Promise<Deployment> {
    const created = await this.resources.create(ctx, accountId, body, {
      ...(options.deploymentId !== undefined ? { id: options.deploymentId } : {}),
      ...(options.validateOnly ? { validateOnly: true } : {}),
      flags: { skipShapeValidation: options.skipShapeValidation === true },
    });
    if (!options.validateOnly) await this.notify(ctx, { kind: 'created', name: created.name, deployment: created });
    return created;
  }

  /**
   * A soft-deleted deployment past its purgeTime is gone: NOT_FOUND, and its record is removed now if the
   * purge worker has not removed it yet.
   */
  private async assertNotPurged(ctx: RequestContext, name: string, data: Deployment): Promise<void> {
    if (!isPurged(data, this.env.clock.now().getTime())) return;
    await this.resources.remove(ctx, name).catch(() => undefined);
    throw notFound(name);
  }

  /** Soft-deleted deployments are still readable by name (AIP-164) until purged. */
  async get(ctx: RequestContext, name: string, readMask?: string): Promise<Deployment> {
    this.resources.authorizeName(ctx, name, 'get');
    const stored = await this.resources.getStored(ctx, name);
    await this.assertNotPurged(ctx, name, stored.data);
    return this.resources.mask(this.resources.withEtag(stored), readMask);
  }

  list(ctx: RequestContext, accountId: string, params: DeploymentListParams): Promise<ListPage<Deployment>> {
    const showDeleted = params.showDeleted === true;
    const notPurged = `(state != DELETED OR purge_time > ${JSON.stringify(this.env.clock.now().toISOString())})`;
    return this.resources.list(ctx, accountId, params, {
      extraFilter: showDeleted ? notPurged : 'state != DELETED',
      extraFilterVaries: showDeleted,
      boundParams: { showDeleted: String(showDeleted) },
    });
  }

  async update(ctx: RequestContext, name: string, body: unknown, updateMask?: string, options: PreconditionOptions = {}): Promise<Deployment> {
    const updated = await this.resources.update(ctx, name, body, updateMask, options);
    await this.notify(ctx, { kind: 'updated', name, deployment: updated });
    return updated;
  }

  /**
   * Soft delete (state DELETED, deleteTime and purgeTime set, hidden from lists unless showDeleted), or
   * with `hard` removal of the record. Deleting an already soft-deleted deployment is NOT_FOUND unless hard.
   * With reconciled deletion (see {@link DeploymentServiceOptions.reconciledDeletion}) a soft delete moves to DELETING instead, and
   * deleting a DELETING deployment again changes nothing.
   */
  async delete(ctx: RequestContext, name: string, options: DeploymentDeleteOptions = {}): Promise<void> {
    this.resources.authorizeName(ctx, name, 'delete');
    const current = await this.resources.getStored(ctx, name);
    await this.assertNotPurged(ctx, name, current.data);
    const state = current.data.state;
    if (state !== 'DELETED' && state !== 'DELETING') for (const guard of this.guards) await guard.check(ctx, current.data, options);
    if (options.hard) {
      await this.resources.remove(ctx, name, options);
      await this.notify(ctx, { kind: 'deleted', name });
      return;
    }
    if (state === 'DELETED') throw notFound(name);
    if (state === 'DELETING') return;
    const target: DeploymentState = this.reconciledDeletion ? 'DELETING' : 'DELETED';
    const deleted = await this.resources.mutate(ctx, name, (previous) => {
      const from = previous.state;
      if (from === 'DELETED') throw notFound(name);
      assertTransition(deploymentStateMachine, from, target);
      const now = this.env.clock.now();
      const purgeTime = new Date(now.getTime() + softDeleteRetentionMs).toISOString();
      return { ...previous, state: target, desiredReplicaCount: 0, deleteTime: now.toISOString(), purgeTime };
    }, options);
    // The purge worker removes it at purgeTime; reads treat it as gone from then on either way.
    await this.env.storage.queue.enqueue(ctx, purgeJobFor(name, deleted.purgeTime ?? ''));
    await this.notify(ctx, { kind: 'deleted', name, deployment: deleted });
  }

  /** Restores a soft-deleted deployment (DELETED → CREATING); FAILED_PRECONDITION for any other state. */
  async undelete(ctx: RequestContext, name: string): Promise<Deployment> {
    this.resources.authorizeName(ctx, name, 'action');
    await this.assertNotPurged(ctx, name, (await this.resources.getStored(ctx, name)).data);
    const restored = await this.resources.mutate(ctx, name, (previous) => {
      assertTransition(deploymentStateMachine, previous.state, 'CREATING');
      const { deleteTime: _d, purgeTime: _p, ...rest } = previous;
      const { min, max } = replicaBounds(rest);
      return { ...rest, state: 'CREATING', desiredReplicaCount: Math.min(Math.max(min, 1), max), ...(this.runtimesInstalled ? {} : { status: noRuntimeStatus }) };
    });
    await this.notify(ctx, { kind: 'undeleted', name, deployment: restored });
    return restored;
  }

  /**
   * Sets the desired replica count (`:scale`). It must lie within [minReplicaCount, maxReplicaCount];
   * a deleted deployment cannot be scaled.
   */
  async scale(ctx: RequestContext, name: string, replicaCount: number): Promise<void> {
    this.resources.authorizeName(ctx, name, 'update');
    if (!Number.isInteger(replicaCount) || replicaCount < 0) {
      throw invalidArgument('replicaCount must be a non-negative integer', { field: 'replicaCount' });
    }
    const scaled = await this.resources.mutate(ctx, name, (previous) => {
      const state = previous.state;
      if (state === 'DELETED' || state === 'DELETING') {
        throw invalidArgument(`deployment ${name} is ${state} and cannot be scaled`, { field: 'replicaCount' });
      }
      const { min, max } = replicaBounds(previous);
      if (replicaCount < min || replicaCount > max) {
        throw invalidArgument(`replicaCount ${replicaCount} is outside [minReplicaCount ${min}, maxReplicaCount ${max}]`, { field: 'replicaCount' });
      }
      return { ...previous, desiredReplicaCount: replicaCount };
    });
    await this.notify(ctx, { kind: 'scaled', name, deployment: scaled });
  }

  private async notify(ctx: RequestContext, change: DeploymentChange): Promise<void> {
    for (const observer of [...this.observers]) {
      try {
        await observer.changed(ctx, change);
      } catch {
        // An observer reports its own failures; the change itself has been made.
      }
    }
  }
}
