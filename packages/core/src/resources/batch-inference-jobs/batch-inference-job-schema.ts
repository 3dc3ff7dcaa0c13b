import type { ResourceType } from '../common/schema-type.js';
import {
  displayNameSchema, jobProgressSchema, nameSchema, precisionSchema, statusSchema, timestampSchema, etagSchema,
} from '../common/schema-parts.js';

/** JobState values a batch inference job can show (the reinforcement-only ones excluded). */
export const batchInferenceJobStateValues = [
  'JOB_STATE_UNSPECIFIED', 'JOB_STATE_CREATING', 'JOB_STATE_RUNNING', 'JOB_STATE_COMPLETED', 'JOB_STATE_FAILED',
  'JOB_STATE_CANCELLED', 'JOB_STATE_DELETING', 'JOB_STATE_WRITING_RESULTS', 'JOB_STATE_VALIDATING',
  'JOB_STATE_DELETING_CLEANING_UP', 'JOB_STATE_PENDING', 'JOB_STATE_EXPIRED', 'JOB_STATE_RE_QUEUEING',
  'JOB_STATE_CREATING_INPUT_DATASET',
] as const;
export type BatchInferenceJobState = (typeof batchInferenceJobStateValues)[number];

export const batchInferenceParametersSchema = {
  type: 'object',
  properties: {
    maxTokens: { type: 'integer', minimum: 1, maximum: 2147483647 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    topP: { type: 'number', minimum: 0, maximum: 1 },
    n: { type: 'integer', minimum: 1, maximum: 2147483647 },
    extraBody: { type: 'string' },
    topK: { type: 'integer', minimum: 0, maximum: 2147483647 },
  },
} as const;

/**
 * The Batch inference job resource (spec: Resources › Batch inference job). `inputDatasetId` and
 * `outputDatasetId` accept a bare dataset id or a full dataset name; they are stored as full names.
 */
export const batchInferenceJobSchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    displayName: displayNameSchema,
    createTime: timestampSchema,
    updateTime: timestampSchema,
    createdBy: { type: 'string' },
    state: { type: 'string', enum: batchInferenceJobStateValues },
    status: statusSchema,
    model: { type: 'string', maxLength: 512 },
    inputDatasetId: { type: 'string', maxLength: 512 },
    outputDatasetId: { type: 'string', maxLength: 512 },
    inferenceParameters: batchInferenceParametersSchema,
    precision: precisionSchema,
    jobProgress: jobProgressSchema,
    continuedFromJobName: { type: 'string', maxLength: 512 },
    etag: etagSchema,
  },
} as const;

export type BatchInferenceJob = ResourceType<typeof batchInferenceJobSchema>;

export const batchInferenceJobOutputOnly = [
  'name', 'createTime', 'updateTime', 'createdBy', 'state', 'status', 'jobProgress',
] as const;
