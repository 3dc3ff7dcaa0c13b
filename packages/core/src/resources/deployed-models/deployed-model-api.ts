import { idQueryParam, defineResourceApi } from '../../api/resource-api.js';
import { preconditionOf } from '../../api/resource-routes.js';
import { queryFlag, queryString } from '../../api/query.js';
import { deployedModelDefinition } from './deployed-model-definition.js';
import type { DeployedModelService } from './deployed-model-service.js';

/** Deployed models over HTTP: create takes `?deployedModelId=` and `validateOnly`. */
export const deployedModelApi = defineResourceApi<DeployedModelService>({
  definition: deployedModelDefinition, tag: 'Deployed models',
  createQuery: [
    idQueryParam('deployedModelId'),
    { name: 'validateOnly', type: 'boolean', description: 'Validate and answer the deployed model without creating it.' },
  ],
  operations: (deployedModels) => ({
    create: (ctx, accountId, r) => {
      const id = queryString(r.query, 'deployedModelId');
      return deployedModels.create(ctx, accountId, r.body ?? {}, {
        ...(id !== undefined ? { deployedModelId: id } : {}),
        validateOnly: queryFlag(r.query, 'validateOnly'),
      });
    },
    get: (ctx, name, mask) => deployedModels.get(ctx, name, mask),
    list: (ctx, accountId, params) => deployedModels.list(ctx, accountId, params),
    update: (ctx, name, body, mask, precondition) => deployedModels.update(ctx, name, body, mask, precondition),
    delete: (ctx, name, r) => deployedModels.delete(ctx, name, preconditionOf(r)),
  }),
});
