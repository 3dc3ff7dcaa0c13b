import { invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { parseResourceName } from '../../names/resource-name.js';
import type { ResourceDefinition } from '../common/resource-definition.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { applyServingDefaults, baseModelFacts, requireDraftModel } from '../common/placement-defaults.js';
import type { ServingAdvisor } from '../common/sizing.js';
import { assertTransition } from '../common/state-machine.js';
import type { DeploymentShape } from '../deployment-shapes/deployment-shape-schema.js';
import type { Model } from '../models/model-schema.js';
import { deploymentFields } from './deployment-fields.js';
import { applyScalingRules, assertDeployableBaseModel, rolloutFields, shapeFields } from './deployment-rules.js';
import { deploymentOutputOnly, deploymentSchema, type Deployment } from './deployment-schema.js';
import { deploymentStateMachine } from './deployment-state-machine.js';

type ShapeField = (typeof shapeFields)[number];

/** Takes `field` from the shape when the deployment leaves it out; a different value needs `skipShapeValidation`. */
function takeFromShape<K extends ShapeField>(data: Deployment, shape: Pick<Deployment, ShapeField>, field: K, skipShapeValidation: boolean): void {
  const fromShape = shape[field];
  if (fromShape === undefined) return;
  if (data[field] === undefined) data[field] = fromShape;
  else if (JSON.stringify(data[field]) !== JSON.stringify(fromShape) && !skipShapeValidation) {
    throw invalidArgument(`${field} differs from deployment shape ${data.deploymentShape} (pass skipShapeValidation=true to allow it)`, { field });
  }
}

async function applyShape(ctx: RequestContext, data: Deployment, env: ResourceEnvironment, accountId: string, skipShapeValidation: boolean): Promise<void> {
  if (data.deploymentShape === undefined || data.deploymentShape === '') return;
  const shape = (await env.requireReference<DeploymentShape>(ctx, data.deploymentShape, 'deploymentShapes', accountId, 'deploymentShape')).data;
  if (data.baseModel === undefined) data.baseModel = shape.baseModel ?? '';
  if (data.baseModel !== shape.baseModel && !skipShapeValidation) {
    throw invalidArgument(`baseModel ${data.baseModel} differs from the shape's ${shape.baseModel}`, { field: 'baseModel' });
  }
  for (const field of shapeFields) takeFromShape(data, shape, field, skipShapeValidation);
}

/**
 * The status of a deployment no runtime can serve because the host installs no accelerator runtime plugin:
 * it stays CREATING (no reconciler runs to make it READY) and says why, and which plugin to add. Once a
 * runtime plugin is installed, the reconciler brings it up and READY clears the status.
 */
export const noRuntimeStatus: NonNullable<Deployment['status']> = {
  code: 'UNAVAILABLE',
  message:
    'no accelerator runtime plugin is installed, so no replica can start and the deployment stays CREATING; ' +
    'add one to the gateway\'s plugins (e.g. gpuxRuntime() from @berth/plugin-runtime-gpux, gpuyRuntime() from @berth/plugin-runtime-gpuy) and restart it',
};

export interface DeploymentDefinitionOptions {
  /** False when no runtime plugin is installed: new deployments get {@link noRuntimeStatus}. Default true. */
  readonly runtimesInstalled?: boolean;
}

/**
 * Deployments. Create checks the base model (exists in the account, deployable, READY), applies the
 * shape, serving defaults and scaling rules, and asks the serving advisor to size and check hardware.
 */
export function deploymentDefinition(advisor: ServingAdvisor, definitionOptions: DeploymentDefinitionOptions = {}): ResourceDefinition<Deployment> {
  /** The serving rules of a new or updated deployment (mutates `data`); answers its replica bounds. */
  const prepareServing = async (ctx: RequestContext, data: Deployment, env: ResourceEnvironment, skipShapeValidation: boolean, previous?: Deployment) => {
    const { accountId } = parseResourceName(data.name, 'deployments');
    await applyShape(ctx, data, env, accountId, skipShapeValidation);
    if (data.baseModel === undefined || data.baseModel === '') throw invalidArgument('baseModel is required', { field: 'baseModel' });
    const base = (await env.requireReference<Model>(ctx, data.baseModel, 'models', accountId, 'baseModel')).data;
    assertDeployableBaseModel(base);
    const facts = baseModelFacts(base);
    applyServingDefaults(data, facts, (d, f) => advisor.minimumAcceleratorCount(d, f));
    await requireDraftModel(ctx, data, env, accountId, previous);
    const bounds = applyScalingRules(data, env.clock.now().getTime());
    advisor.validate(ctx, data, facts);
    return bounds;
  };
  return {
    collection: 'deployments',
    singular: 'deployment',
    schema: deploymentSchema,
    outputOnly: deploymentOutputOnly,
    immutable: ['baseModel'],
    fields: deploymentFields,
    defaultOrder: 'create_time',
    stateMachine: deploymentStateMachine,
    async prepareCreate(ctx, data, env, options) {
      const { min, max } = await prepareServing(ctx, data, env, options.flags?.skipShapeValidation === true);
      data.replicaCount = 0;
      data.desiredReplicaCount = Math.min(Math.max(min, 1), max);
      data.replicaStats = { pendingSchedulingReplicaCount: 0, downloadingModelReplicaCount: 0, initializingReplicaCount: 0, readyReplicaCount: 0 };
      if (definitionOptions.runtimesInstalled === false) data.status = noRuntimeStatus;
    },
    async prepareUpdate(ctx, next, previous, env) {
      const state = previous.state;
      if (state === 'DELETED' || state === 'DELETING') {
        throw invalidArgument(`deployment ${previous.name} is ${state}; undelete it first`, { field: 'state', reason: 'DEPLOYMENT_DELETED' });
      }
      const { min, max } = await prepareServing(ctx, next, env, true, previous);
      const changed = rolloutFields.some((f) => JSON.stringify(next[f]) !== JSON.stringify(previous[f]));
      if (changed && state === 'READY') {
        assertTransition(deploymentStateMachine, state, 'UPDATING');
        next.state = 'UPDATING';
      }
      next.desiredReplicaCount = Math.min(Math.max(next.desiredReplicaCount ?? 0, min), max);
    },
  };
}
