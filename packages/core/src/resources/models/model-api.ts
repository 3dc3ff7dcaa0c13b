import { defineResourceApi } from '../../api/resource-api.js';
import { preconditionOf, wrapperParts } from '../../api/resource-routes.js';
import { compileValidator, type JsonSchema } from '../../validation/schema-validator.js';
import { modelDefinition } from './model-definition.js';
import { modelSchema } from './model-schema.js';
import type { ModelService } from './model-service.js';

const modelCreateBody: JsonSchema = { type: 'object', properties: { modelId: { type: 'string' }, model: modelSchema } };
const validateModelWrapper = compileValidator({ type: 'object', properties: { modelId: { type: 'string' }, model: { type: 'object' } } }, 'request body');

/** Models over HTTP: create takes the `{modelId, model}` wrapper. */
export const modelApi = defineResourceApi<ModelService>({
  definition: modelDefinition, tag: 'Models', createBody: modelCreateBody,
  operations: (models) => ({
    create: (ctx, accountId, r) => {
      validateModelWrapper(r.body ?? {});
      const { id, inner } = wrapperParts(r.body ?? {}, 'modelId', 'model');
      return models.create(ctx, accountId, inner ?? {}, id);
    },
    get: (ctx, name, mask) => models.get(ctx, name, mask),
    list: (ctx, accountId, params) => models.list(ctx, accountId, params),
    update: (ctx, name, body, mask, precondition) => models.update(ctx, name, body, mask, precondition),
    delete: (ctx, name, r) => models.delete(ctx, name, preconditionOf(r)),
  }),
});
