import type { ResourceDefinition } from '../common/resource-definition.js';
import { reinforcementFineTuningJobFields } from './reinforcement-fine-tuning-job-fields.js';
import { applyReinforcementFineTuningJobCreateRules } from './reinforcement-fine-tuning-job-rules.js';
import { reinforcementFineTuningJobOutputOnly, reinforcementFineTuningJobSchema } from './reinforcement-fine-tuning-job-schema.js';
import { reinforcementFineTuningJobStateMachine } from './reinforcement-fine-tuning-job-state-machine.js';

/** Reinforcement fine-tuning jobs: create, get, list, delete, `:cancel`, `:resume` (no update). */
export const reinforcementFineTuningJobDefinition: ResourceDefinition = {
  collection: 'reinforcementFineTuningJobs',
  singular: 'reinforcementFineTuningJob',
  schema: reinforcementFineTuningJobSchema,
  outputOnly: reinforcementFineTuningJobOutputOnly,
  immutable: [],
  fields: reinforcementFineTuningJobFields,
  defaultOrder: 'create_time',
  stateMachine: reinforcementFineTuningJobStateMachine,
  prepareCreate: (ctx, data, env) => applyReinforcementFineTuningJobCreateRules(ctx, data, env),
};
