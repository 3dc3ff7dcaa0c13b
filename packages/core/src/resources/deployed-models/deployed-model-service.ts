import { isGatewayError, Code } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { isValidId, parseResourceName } from '../../names/resource-name.js';
import { crudService } from '../common/crud-service.js';
import { storedOf } from '../common/resource-environment.js';
import type { PreconditionOptions } from '../common/resource-service.js';
import { assertTransition } from '../common/state-machine.js';
import type { Deployment } from '../deployments/deployment-schema.js';
import { deployedModelDefinition, findDeployedModels } from './deployed-model-definition.js';
import { deployedModelStateFor } from './deployed-model-rules.js';
import type { DeployedModel, DeployedModelState } from './deployed-model-schema.js';
import { deployedModelStateMachine } from './deployed-model-state-machine.js';

/**
 * Whether an add-on is loaded where its deployment serves it: a record the serving layer reports as not
 * loaded stays DEPLOYING (with `status` saying why, when a load failed) even while its deployment is READY.
 */
export interface AddonReadiness {
  readonly loaded: boolean;
  readonly status?: NonNullable<DeployedModel['status']>;
}

/** Told about every created or removed record (the serving layer re-reads its routing). */
export type DeployedModelObserver = (ctx: RequestContext, change: { readonly kind: 'created' | 'removed'; readonly record: DeployedModel }) => void;

/**
 * Deployed models: which model (a base model or an add-on) is served by which deployment. Create is
 * "deploy", delete is "undeploy"; get, list and update (displayName, description or public: model and
 * deployment are immutable) are as the definition makes them. The first record of a model is its default
 * target. The serving layer keeps `state` in step with the deployment
 * ({@link DeployedModelService.syncWithDeployment}); a deployment's own base model gets a record
 * automatically ({@link DeployedModelService.ensureBaseRecord}).
 */
export class DeployedModelService extends crudService(deployedModelDefinition, ['get', 'list', 'update']) {
  private readonly observers = new Set<DeployedModelObserver>();


  /** Adds an observer; returns the function that removes it. */
  addObserver(observer: DeployedModelObserver): () => void {
    this.observers.add(observer);
    return () => void this.observers.delete(observer);
  }

  /**
   * Deploys a model to a deployment (state DEPLOYING).
   * @throws INVALID_ARGUMENT for a missing, malformed or foreign model/deployment, or a model the deployment
   *   cannot serve; FAILED_PRECONDITION when the deployment is deleted or an add-on meets a deployment without
   *   `enableAddons`; ALREADY_EXISTS when the id is taken or the model is already deployed there.
   */
  async create(ctx: RequestContext, accountId: string, body: unknown, options: { deployedModelId?: string; validateOnly?: boolean } = {}): Promise<DeployedModel> {
    const created = await this.resources.create(ctx, accountId, body, {
      ...(options.deployedModelId !== undefined ? { id: options.deployedModelId } : {}),
      ...(options.validateOnly ? { validateOnly: true } : {}),
    });
    if (!options.validateOnly) this.notify(ctx, 'created', created);
    return created;
  }

  /**
   * Undeploys: the record goes (via UNDEPLOYING) and, when it was the model's default, the model's oldest
   * remaining record becomes the default. NOT_FOUND when absent.
   */
  async delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    this.resources.authorizeName(ctx, name, 'delete');
    const record = (await this.resources.getStored(ctx, name)).data;
    assertTransition(deployedModelStateMachine, record.state, 'UNDEPLOYING');
    await this.removeRecord(ctx, record, options);
  }

  /** Records of a model and/or deployment in an account, oldest first. No authorization (system use). */
  recordsOf(ctx: RequestContext, accountId: string, match: { model?: string; deployment?: string }): Promise<DeployedModel[]> {
    return findDeployedModels(ctx, this.resources.env, accountId, match);
  }

  /**
   * Gives a deployment's own base model a record (default when it is the model's first), unless one exists.
   * The id is the deployment's id when free. No authorization (system use).
   */
  async ensureBaseRecord(ctx: RequestContext, deployment: Deployment): Promise<DeployedModel | undefined> {
    const name = deployment.name;
    const baseModel = deployment.baseModel;
    if (baseModel === undefined || baseModel === '') return undefined;
    const { accountId, id } = parseResourceName(name, 'deployments');
    const existing = await this.recordsOf(ctx, accountId, { model: baseModel, deployment: name });
    if (existing[0]) return existing[0];
    const now = this.resources.env.nowIso();
    const taken = await this.resources.env.storage.resources.get(ctx, this.resources.nameOf(accountId, id));
    const recordId = taken || !isValidId(id) ? this.resources.env.ids.resourceId() : id;
    const others = await this.recordsOf(ctx, accountId, { model: baseModel });
    const record: DeployedModel = {
      name: this.resources.nameOf(accountId, recordId),
      createTime: now,
      updateTime: now,
      model: baseModel,
      deployment: name,
      default: !others.some((r) => r.state !== 'UNDEPLOYING'),
      public: false,
      state: deployedModelStateMachine.initial,
    };
    try {
      const created = await this.resources.insert(ctx, record);
      this.notify(ctx, 'created', created);
      return created;
    } catch (error) {
      if (isGatewayError(error) && error.code === Code.ALREADY_EXISTS) return undefined;
      throw error;
    }
  }

  /**
   * Moves the records of a deployment to the state its deployment implies (DEPLOYED when READY, UNDEPLOYING
   * while DELETING, …) and removes them once the deployment is DELETED or gone. With `addons` (the serving
   * layer's report on a deployment with add-ons), an add-on record it does not report loaded stays where it
   * is instead of becoming DEPLOYED, with the report's status.
   * No authorization (system use).
   */
  async syncWithDeployment(ctx: RequestContext, deploymentName: string, addons?: ReadonlyMap<string, AddonReadiness>): Promise<void> {
    const { accountId } = parseResourceName(deploymentName, 'deployments');
    const stored = await this.resources.env.storage.resources.get(ctx, deploymentName);
    const deployment = stored ? storedOf<Deployment>(stored).data : undefined;
    const deploymentState = deployment?.state;
    const deploymentFailure = deploymentState === 'FAILED' ? deployment?.status : undefined;
    for (const record of await this.recordsOf(ctx, accountId, { deployment: deploymentName })) {
      const current = record.state ?? 'STATE_UNSPECIFIED';
      const readiness = addons?.get(record.name);
      // An add-on the serving layer has not reported loaded (it may have been deployed since) waits.
      const waiting = addons !== undefined && record.model !== deployment?.baseModel && readiness?.loaded !== true;
      const stateFor = (from: DeployedModelState) => {
        const to = deployedModelStateFor(deploymentState, from);
        return to === 'DEPLOYED' && waiting ? from : to;
      };
      const target = stateFor(current);
      if (target === 'remove') {
        await this.removeRecord(ctx, record);
        continue;
      }
      const failed = deploymentFailure ?? readiness?.status;
      const statusChanged = JSON.stringify(record.status) !== JSON.stringify(failed);
      if (target === current && !statusChanged) continue;
      try {
        await this.resources.mutate(ctx, record.name, (previous) => {
          const from = previous.state ?? 'STATE_UNSPECIFIED';
          const to = stateFor(from);
          const next: DeployedModel = { ...previous };
          if (to !== 'remove' && to !== from) {
            assertTransition(deployedModelStateMachine, from, to);
            next.state = to;
          }
          if (failed) next.status = failed;
          else delete next.status;
          return next;
        });
      } catch (error) {
        if (!(isGatewayError(error) && error.code === Code.NOT_FOUND)) throw error;
      }
    }
  }

  private async removeRecord(ctx: RequestContext, record: DeployedModel, options: PreconditionOptions = {}): Promise<void> {
    const name = record.name;
    await this.resources.remove(ctx, name, options);
    this.notify(ctx, 'removed', record);
    if (record.default !== true || record.model === undefined) return;
    const { accountId } = parseResourceName(name, 'deployedModels');
    const next = (await this.recordsOf(ctx, accountId, { model: record.model })).find((r) => r.state !== 'UNDEPLOYING');
    if (!next) return;
    try {
      await this.resources.mutate(ctx, next.name, (previous) => ({ ...previous, default: true }));
    } catch (error) {
      if (!(isGatewayError(error) && error.code === Code.NOT_FOUND)) throw error;
    }
  }

  private notify(ctx: RequestContext, kind: 'created' | 'removed', record: DeployedModel): void {
    for (const observer of this.observers) {
      try {
        observer(ctx, { kind, record });
      } catch {
        // Observers must not break the API call they observe.
      }
    }
  }
}
