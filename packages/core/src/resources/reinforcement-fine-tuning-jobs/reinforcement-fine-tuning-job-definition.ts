import type { ResourceDefinition } from '../common/resource-definition.js';
import { reinforcementFineTuningJobFields } from './reinforcement-fine-tuning-job-fields.js';
import { applyReinforcementFineTuningJobCreateRules } from './reinforcement-fine-tuning-job-rules.js';
import {
  reinforcementFineTuningJobOutputOnly, reinforcementFineTuningJobSchema, type ReinforcementFineTuningJob,
} from './reinforcement-fine-tuning-job-schema.js';
import { reinforcementFineTuningJobStateMachine } from './reinforcement-fine-tuning-job-state-machine.js';

/**
 * `trackerConfig.apiKey` is write-only: it is stored for the trainer, and answers show only `****` and
 * its last four characters, so anyone who may read the job cannot read the credential.
 */
export function redactTrackerApiKey<J extends Partial<ReinforcementFineTuningJob>>(data: J): J {
  const tracker = data.trackerConfig;
  if (tracker === undefined || tracker.apiKey === undefined || tracker.apiKey === '') return data;
  return { ...data, trackerConfig: { ...tracker, apiKey: `****${tracker.apiKey.length > 8 ? tracker.apiKey.slice(-4) : ''}` } };
}

/** Reinforcement fine-tuning jobs: create, get, list, delete, `:cancel`, `:resume` (no update). */
export const reinforcementFineTuningJobDefinition: ResourceDefinition<ReinforcementFineTuningJob> = {
  collection: 'reinforcementFineTuningJobs',
  singular: 'reinforcementFineTuningJob',
  schema: reinforcementFineTuningJobSchema,
  outputOnly: reinforcementFineTuningJobOutputOnly,
  immutable: [],
  fields: reinforcementFineTuningJobFields,
  defaultOrder: 'create_time',
  stateMachine: reinforcementFineTuningJobStateMachine,
  prepareCreate: (ctx, data, env) => applyReinforcementFineTuningJobCreateRules(ctx, data, env),
  present: redactTrackerApiKey,
};
