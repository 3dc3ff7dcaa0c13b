import { defineResourceApi } from '../../api/resource-api.js';
import { wrapperParts } from '../../api/resource-routes.js';
import { standardOperations } from '../../api/standard-operations.js';
import { compileValidator, type JsonSchema } from '../../validation/schema-validator.js';
import { modelDefinition } from './model-definition.js';
import { modelSchema } from './model-schema.js';
import type { ModelService } from './model-service.js';

const modelCreateBody: JsonSchema = { type: 'object', properties: { modelId: { type: 'string' }, model: modelSchema } };
const validateModelWrapper = compileValidator({ type: 'object', properties: { modelId: { type: 'string' }, model: { type: 'object' } } }, 'request body');

/** Models over HTTP: create takes the `{modelId, model}` wrapper. */
export const modelApi = defineResourceApi<ModelService>({
  definition: modelDefinition, tag: 'Models',
  create: {
    body: modelCreateBody,
    handle: (models, ctx, accountId, r) => {
      validateModelWrapper(r.body ?? {});
      const { id, inner } = wrapperParts(r.body ?? {}, 'modelId', 'model');
      return models.create(ctx, accountId, inner ?? {}, id);
    },
  },
  operations: (models) => standardOperations(models, ['update', 'delete']),
});
