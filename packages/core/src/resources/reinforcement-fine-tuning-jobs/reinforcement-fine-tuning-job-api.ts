import { defineResourceApi } from '../../api/resource-api.js';
import { createWithIdParam } from '../../api/create-method.js';
import { customMethod } from '../../api/custom-method.js';
import { standardOperations } from '../../api/standard-operations.js';
import { reinforcementFineTuningJobDefinition } from './reinforcement-fine-tuning-job-definition.js';
import { reinforcementFineTuningJobSchema } from './reinforcement-fine-tuning-job-schema.js';
import type { ReinforcementFineTuningJobService } from './reinforcement-fine-tuning-job-service.js';

/** RFT jobs over HTTP: create takes `?reinforcementFineTuningJobId=`; no update; `:cancel` and `:resume`. */
export const reinforcementFineTuningJobApi = defineResourceApi<ReinforcementFineTuningJobService>({
  definition: reinforcementFineTuningJobDefinition, tag: 'Reinforcement fine-tuning jobs',
  create: createWithIdParam('reinforcementFineTuningJobId'),
  operations: (jobs) => standardOperations(jobs, ['delete']),
  customMethods: [
    customMethod({
      verb: 'cancel', operationId: 'cancelReinforcementFineTuningJob', summary: 'Cancel a reinforcement fine-tuning job',
      permission: 'reinforcementFineTuningJobs.action', run: (jobs, ctx, name) => jobs.cancel(ctx, name),
    }),
    customMethod({
      verb: 'resume', operationId: 'resumeReinforcementFineTuningJob', summary: 'Resume a paused or failed reinforcement fine-tuning job',
      permission: 'reinforcementFineTuningJobs.action', response: reinforcementFineTuningJobSchema, run: (jobs, ctx, name) => jobs.resume(ctx, name),
    }),
  ],
});
