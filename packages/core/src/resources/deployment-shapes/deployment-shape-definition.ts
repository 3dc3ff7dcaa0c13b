import type { ResourceDefinition } from '../common/resource-definition.js';
import { applyServingDefaults, baseModelFacts, requireDraftModel } from '../common/placement-defaults.js';
import type { ServingAdvisor } from '../common/sizing.js';
import type { Model } from '../models/model-schema.js';
import { parseResourceName } from '../../names/resource-name.js';
import { deploymentShapeFields } from './deployment-shape-fields.js';
import { deploymentShapeOutputOnly, deploymentShapeSchema, type DeploymentShape } from './deployment-shape-schema.js';
import { invalidArgument } from '../../errors/index.js';

/**
 * Deployment shapes: reusable serving settings for a base model. On create the base model must exist in
 * the same account; modelType and parameterCount are copied from it, and the serving defaults
 * (accelerator type and count, draft model, precision) are filled in.
 */
export function deploymentShapeDefinition(advisor: ServingAdvisor): ResourceDefinition<DeploymentShape> {
  return {
    collection: 'deploymentShapes',
    singular: 'deploymentShape',
    schema: deploymentShapeSchema,
    outputOnly: deploymentShapeOutputOnly,
    immutable: ['baseModel'],
    fields: deploymentShapeFields,
    defaultOrder: 'create_time',
    async prepareCreate(ctx, data, env) {
      if (data.baseModel === undefined || data.baseModel === '') {
        throw invalidArgument('baseModel is required', { field: 'baseModel' });
      }
      const { accountId } = parseResourceName(data.name, 'deploymentShapes');
      const base = await env.requireReference<Model>(ctx, data.baseModel, 'models', accountId, 'baseModel');
      const facts = baseModelFacts(base.data);
      if (data.modelType === undefined && facts.modelType) data.modelType = facts.modelType;
      if (data.parameterCount === undefined && facts.parameterCount) data.parameterCount = facts.parameterCount;
      applyServingDefaults(data, facts, (d, f) => advisor.minimumAcceleratorCount(d, f));
      await requireDraftModel(ctx, data, env, accountId);
      advisor.validate(ctx, data, facts);
    },
    async prepareUpdate(ctx, next, previous, env) {
      const { accountId } = parseResourceName(next.name, 'deploymentShapes');
      // baseModel is set at create and immutable.
      const base = await env.requireReference<Model>(ctx, next.baseModel ?? '', 'models', accountId, 'baseModel');
      const facts = baseModelFacts(base.data);
      applyServingDefaults(next, facts, (d, f) => advisor.minimumAcceleratorCount(d, f));
      await requireDraftModel(ctx, next, env, accountId, previous);
      advisor.validate(ctx, next, facts);
    },
  };
}
