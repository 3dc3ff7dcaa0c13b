import { idQueryParam, defineResourceApi } from '../../api/resource-api.js';
import { assertEmptyBody, emptySchema, preconditionOf } from '../../api/resource-routes.js';
import { queryString } from '../../api/query.js';
import { reinforcementFineTuningJobDefinition } from './reinforcement-fine-tuning-job-definition.js';
import { reinforcementFineTuningJobSchema } from './reinforcement-fine-tuning-job-schema.js';
import type { ReinforcementFineTuningJobService } from './reinforcement-fine-tuning-job-service.js';

/** RFT jobs over HTTP: create takes `?reinforcementFineTuningJobId=`; no update; `:cancel` and `:resume`. */
export const reinforcementFineTuningJobApi = defineResourceApi<ReinforcementFineTuningJobService>({
  definition: reinforcementFineTuningJobDefinition, tag: 'Reinforcement fine-tuning jobs',
  createQuery: [idQueryParam('reinforcementFineTuningJobId')],
  operations: (jobs) => ({
    create: (ctx, accountId, r) => jobs.create(ctx, accountId, r.body ?? {}, queryString(r.query, 'reinforcementFineTuningJobId')),
    get: (ctx, name, mask) => jobs.get(ctx, name, mask),
    list: (ctx, accountId, params) => jobs.list(ctx, accountId, params),
    delete: (ctx, name, r) => jobs.delete(ctx, name, preconditionOf(r)),
  }),
  customMethods: [
    {
      method: 'POST', verb: 'cancel', operationId: 'cancelReinforcementFineTuningJob', summary: 'Cancel a reinforcement fine-tuning job',
      requestBody: emptySchema, response: emptySchema, permission: 'reinforcementFineTuningJobs.action',
      handle: async (jobs, name, r) => {
        assertEmptyBody(r.body);
        await jobs.cancel(r.ctx, name);
        return {};
      },
    },
    {
      method: 'POST', verb: 'resume', operationId: 'resumeReinforcementFineTuningJob', summary: 'Resume a paused or failed reinforcement fine-tuning job',
      requestBody: emptySchema, response: reinforcementFineTuningJobSchema, permission: 'reinforcementFineTuningJobs.action',
      handle: (jobs, name, r) => {
        assertEmptyBody(r.body);
        return jobs.resume(r.ctx, name);
      },
    },
  ],
});
