import { idQueryParam, defineResourceApi } from '../../api/resource-api.js';
import { preconditionOf } from '../../api/resource-routes.js';
import { queryString } from '../../api/query.js';
import { batchInferenceJobDefinition } from './batch-inference-job-definition.js';
import type { BatchInferenceJobService } from './batch-inference-job-service.js';

/** Batch inference jobs over HTTP: create takes `?batchInferenceJobId=`; no update. */
export const batchInferenceJobApi = defineResourceApi<BatchInferenceJobService>({
  definition: batchInferenceJobDefinition, tag: 'Batch inference jobs', createQuery: [idQueryParam('batchInferenceJobId')],
  operations: (jobs) => ({
    create: (ctx, accountId, r) => jobs.create(ctx, accountId, r.body ?? {}, queryString(r.query, 'batchInferenceJobId')),
    get: (ctx, name, mask) => jobs.get(ctx, name, mask),
    list: (ctx, accountId, params) => jobs.list(ctx, accountId, params),
    delete: (ctx, name, r) => jobs.delete(ctx, name, preconditionOf(r)),
  }),
});
