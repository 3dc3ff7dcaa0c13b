import { defineResourceApi } from '../../api/resource-api.js';
import { createWithId } from '../../api/create-method.js';
import { standardOperations } from '../../api/standard-operations.js';
import { queryFlag } from '../../api/query.js';
import { deployedModelDefinition } from './deployed-model-definition.js';
import type { DeployedModelService } from './deployed-model-service.js';

/** Deployed models over HTTP: create takes `?deployedModelId=` and `validateOnly`. */
export const deployedModelApi = defineResourceApi<DeployedModelService>({
  definition: deployedModelDefinition, tag: 'Deployed models',
  create: createWithId(
    'deployedModelId',
    (deployedModels, ctx, accountId, body, id, r) =>
      deployedModels.create(ctx, accountId, body, { deployedModelId: id, validateOnly: queryFlag(r.query, 'validateOnly') }),
    [{ name: 'validateOnly', type: 'boolean', description: 'Validate and answer the deployed model without creating it.' }],
  ),
  operations: (deployedModels) => standardOperations(deployedModels, ['update', 'delete']),
});
