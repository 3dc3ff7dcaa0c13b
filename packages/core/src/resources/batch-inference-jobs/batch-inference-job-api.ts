import { defineResourceApi } from '../../api/resource-api.js';
import { createWithIdParam } from '../../api/create-method.js';
import { customMethod } from '../../api/custom-method.js';
import { standardOperations } from '../../api/standard-operations.js';
import { batchInferenceJobDefinition } from './batch-inference-job-definition.js';
import type { BatchInferenceJobService } from './batch-inference-job-service.js';

/** Batch inference jobs over HTTP: create takes `?batchInferenceJobId=`; no update; `:cancel` (a Berth extension). */
export const batchInferenceJobApi = defineResourceApi<BatchInferenceJobService>({
  definition: batchInferenceJobDefinition, tag: 'Batch inference jobs',
  create: createWithIdParam('batchInferenceJobId'),
  operations: (jobs) => standardOperations(jobs, ['delete']),
  customMethods: [
    customMethod({
      verb: 'cancel', operationId: 'cancelBatchInferenceJob',
      summary: 'Cancel a batch inference job (Berth extension): rows already processed are kept in the output dataset',
      permission: 'batchInferenceJobs.action', run: (jobs, ctx, name) => jobs.cancel(ctx, name),
    }),
  ],
});
