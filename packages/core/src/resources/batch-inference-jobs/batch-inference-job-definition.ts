import type { ResourceDefinition } from '../common/resource-definition.js';
import { batchInferenceJobFields } from './batch-inference-job-fields.js';
import { applyBatchInferenceJobCreateRules } from './batch-inference-job-rules.js';
import { batchInferenceJobOutputOnly, batchInferenceJobSchema, type BatchInferenceJob } from './batch-inference-job-schema.js';
import { batchInferenceJobStateMachine } from './batch-inference-job-state-machine.js';

/** Batch inference jobs: create, get, list, delete (the API has no update). */
export const batchInferenceJobDefinition: ResourceDefinition<BatchInferenceJob> = {
  collection: 'batchInferenceJobs',
  singular: 'batchInferenceJob',
  schema: batchInferenceJobSchema,
  outputOnly: batchInferenceJobOutputOnly,
  immutable: [],
  fields: batchInferenceJobFields,
  defaultOrder: 'create_time',
  stateMachine: batchInferenceJobStateMachine,
  prepareCreate: (ctx, data, env) => applyBatchInferenceJobCreateRules(ctx, data, env),
};
