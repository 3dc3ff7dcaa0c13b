import { defineResourceApi } from '../../api/resource-api.js';
import { preconditionOf } from '../../api/resource-routes.js';
import { datasetDefinition } from './dataset-definition.js';
import { createDatasetRequestSchema } from './dataset-schema.js';
import type { DatasetService } from './dataset-service.js';

/** Datasets over HTTP: create takes the dataset request body (id inside); no update. */
export const datasetApi = defineResourceApi<DatasetService>({
  definition: datasetDefinition, tag: 'Datasets', createBody: createDatasetRequestSchema,
  operations: (datasets) => ({
    create: (ctx, accountId, r) => datasets.create(ctx, accountId, r.body ?? {}),
    get: (ctx, name, mask) => datasets.get(ctx, name, mask),
    list: (ctx, accountId, params) => datasets.list(ctx, accountId, params),
    delete: (ctx, name, r) => datasets.delete(ctx, name, preconditionOf(r)),
  }),
});
