import { invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { ResourceDefinition } from '../common/resource-definition.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { applyServingDefaults, baseModelFacts, requireDraftModel } from '../common/placement-defaults.js';
import type { ServingAdvisor } from '../common/sizing.js';
import { assertTransition } from '../common/state-machine.js';
import { deploymentFields } from './deployment-fields.js';
import { applyScalingRules, assertDeployableBaseModel, rolloutFields, shapeFields } from './deployment-rules.js';
import { deploymentOutputOnly, deploymentSchema, type DeploymentState } from './deployment-schema.js';
import { deploymentStateMachine } from './deployment-state-machine.js';

async function applyShape(ctx: RequestContext, data: JsonObject, env: ResourceEnvironment, accountId: string, skipShapeValidation: boolean): Promise<void> {
  if (typeof data.deploymentShape !== 'string' || data.deploymentShape === '') return;
  const shape = (await env.requireReference(ctx, data.deploymentShape, 'deploymentShapes', accountId, 'deploymentShape')).data;
  if (data.baseModel === undefined) data.baseModel = shape.baseModel ?? '';
  if (data.baseModel !== shape.baseModel && !skipShapeValidation) {
    throw invalidArgument(`baseModel ${String(data.baseModel)} differs from the shape's ${String(shape.baseModel)}`, { field: 'baseModel' });
  }
  for (const field of shapeFields) {
    if (shape[field] === undefined) continue;
    if (data[field] === undefined) data[field] = shape[field];
    else if (JSON.stringify(data[field]) !== JSON.stringify(shape[field]) && !skipShapeValidation) {
      throw invalidArgument(`${field} differs from deployment shape ${data.deploymentShape} (pass skipShapeValidation=true to allow it)`, { field });
    }
  }
}

/**
 * Deployments. Create checks the base model (exists in the account, deployable, READY), applies the
 * shape, serving defaults and scaling rules, and asks the serving advisor to size and check hardware.
 */
export function deploymentDefinition(advisor: ServingAdvisor): ResourceDefinition {
  const prepareServing = async (ctx: RequestContext, data: JsonObject, env: ResourceEnvironment, skipShapeValidation: boolean, previous?: JsonObject) => {
    const accountId = String(data.name).split('/')[1]!;
    await applyShape(ctx, data, env, accountId, skipShapeValidation);
    if (typeof data.baseModel !== 'string' || data.baseModel === '') throw invalidArgument('baseModel is required', { field: 'baseModel' });
    const base = (await env.requireReference(ctx, data.baseModel, 'models', accountId, 'baseModel')).data;
    assertDeployableBaseModel(base);
    const facts = baseModelFacts(base);
    applyServingDefaults(data, facts, (d, f) => advisor.minimumAcceleratorCount(d, f));
    await requireDraftModel(ctx, data, env, accountId, previous);
    applyScalingRules(data, env.clock.now().getTime());
    advisor.validate(ctx, data, facts);
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
      await prepareServing(ctx, data, env, options.flags?.skipShapeValidation === true);
      const min = data.minReplicaCount as number;
      const max = data.maxReplicaCount as number;
      data.replicaCount = 0;
      data.desiredReplicaCount = Math.min(Math.max(min, 1), max);
      data.replicaStats = { pendingSchedulingReplicaCount: 0, downloadingModelReplicaCount: 0, initializingReplicaCount: 0, readyReplicaCount: 0 };
    },
    async prepareUpdate(ctx, next, previous, env) {
      const state = previous.state as DeploymentState;
      if (state === 'DELETED' || state === 'DELETING') {
        throw invalidArgument(`deployment ${String(previous.name)} is ${state}; undelete it first`, { field: 'state', reason: 'DEPLOYMENT_DELETED' });
      }
      await prepareServing(ctx, next, env, true, previous);
      const changed = rolloutFields.some((f) => JSON.stringify(next[f]) !== JSON.stringify(previous[f]));
      if (changed && state === 'READY') {
        assertTransition(deploymentStateMachine, state, 'UPDATING');
        next.state = 'UPDATING';
      }
      const desired = typeof next.desiredReplicaCount === 'number' ? next.desiredReplicaCount : 0;
      next.desiredReplicaCount = Math.min(Math.max(desired, next.minReplicaCount as number), next.maxReplicaCount as number);
    },
  };
}
