import type { ResourceDefinition } from '../common/resource-definition.js';
import { modelFields } from './model-fields.js';
import { applyModelRules, checkModelReferences } from './model-rules.js';
import { modelOutputOnly, modelSchema, type Model } from './model-schema.js';
import { modelStateMachine } from './model-state-machine.js';
import { createdForUpload } from './model-upload-start.js';

export const modelDefinition: ResourceDefinition<Model> = {
  collection: 'models',
  singular: 'model',
  schema: modelSchema,
  outputOnly: modelOutputOnly,
  immutable: ['kind', 'peftDetails.baseModel', 'baseModelDetails.parameterCount'],
  fields: modelFields,
  defaultOrder: 'create_time',
  stateMachine: modelStateMachine,
  prepareCreate: async (ctx, data, env) => {
    applyModelRules(data);
    await checkModelReferences(ctx, data, env);
    if (await createdForUpload(ctx, data, env)) data.state = 'UPLOADING';
  },
  prepareUpdate: async (ctx, next, previous, env) => {
    applyModelRules(next);
    await checkModelReferences(ctx, next, env, previous);
  },
};
