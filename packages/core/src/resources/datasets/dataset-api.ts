import { defineResourceApi } from '../../api/resource-api.js';
import { standardOperations } from '../../api/standard-operations.js';
import { datasetDefinition } from './dataset-definition.js';
import { createDatasetRequestSchema } from './dataset-schema.js';
import type { DatasetService } from './dataset-service.js';

/**
 * Datasets over HTTP: create takes the dataset request body (id inside); no update. The file upload and
 * download methods are `dataset-file-api.ts`.
 */
export const datasetApi = defineResourceApi<DatasetService>({
  definition: datasetDefinition, tag: 'Datasets',
  create: { body: createDatasetRequestSchema, handle: (datasets, ctx, accountId, r) => datasets.create(ctx, accountId, r.body ?? {}) },
  operations: (datasets) => standardOperations(datasets, ['delete']),
});
