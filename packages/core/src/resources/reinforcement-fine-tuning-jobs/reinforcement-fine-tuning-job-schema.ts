import type { ResourceType } from '../common/schema-type.js';
import {
  displayNameSchema, nonNegativeInt64Schema, jobProgressSchema, jobStateValues, nameSchema, nonNegativeInt32Schema,
  regionSchema, statusSchema, timestampSchema, etagSchema,
} from '../common/schema-parts.js';

/** lossConfig.method values (api-facts: Enums not listed in the spec). */
export const lossMethodValues = ['METHOD_UNSPECIFIED', 'GRPO', 'DAPO', 'DPO', 'ORPO', 'GSPO_TOKEN'] as const;
export type LossMethod = (typeof lossMethodValues)[number];

/** Limits of `chunkSize` (spec: Limits). */
export const chunkSizeLimits = { minimum: 1, maximum: 10000, default: 200 } as const;
export const nodeCountDefault = 1;
/** `trainingConfig.loraRank` of a job that names none (LoRA, as most bases allow). */
export const loraRankDefault = 8;
/** A LoRA rank the output add-on can carry (`peftDetails.r`). */
export const loraRankLimits = { minimum: 4, maximum: 64 } as const;

export const trainingConfigSchema = {
  type: 'object',
  properties: {
    outputModel: { type: 'string', maxLength: 512 },
    baseModel: { type: 'string', maxLength: 512 },
    warmStartFrom: { type: 'string', maxLength: 512 },
    jinjaTemplate: { type: 'string' },
    learningRate: { type: 'number', minimum: 0 },
    maxContextLength: nonNegativeInt32Schema,
    loraRank: nonNegativeInt32Schema,
    epochs: nonNegativeInt32Schema,
    batchSize: nonNegativeInt32Schema,
    gradientAccumulationSteps: nonNegativeInt32Schema,
    learningRateWarmupSteps: nonNegativeInt32Schema,
    batchSizeSamples: nonNegativeInt32Schema,
    region: regionSchema,
    optimizerWeightDecay: { type: 'number', minimum: 0 },
  },
} as const;

export const trackerConfigSchema = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean' },
    apiKey: { type: 'string' },
    project: { type: 'string' },
    entity: { type: 'string' },
    runId: { type: 'string' },
    url: { type: 'string', maxLength: 2083 },
  },
} as const;

export const objectStoreConfigSchema = {
  type: 'object',
  properties: {
    credentialsSecret: { type: 'string' },
    iamRoleArn: { type: 'string' },
  },
} as const;

export const rftInferenceParametersSchema = {
  type: 'object',
  properties: {
    maxOutputTokens: { type: 'integer', minimum: 1, maximum: 2147483647 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    topP: { type: 'number', minimum: 0, maximum: 1 },
    responseCandidatesCount: { type: 'integer', minimum: 1, maximum: 2147483647 },
    extraBody: { type: 'string' },
    topK: { type: 'integer', minimum: 0, maximum: 2147483647 },
  },
} as const;

export const lossConfigSchema = {
  type: 'object',
  properties: {
    method: { type: 'string', enum: lossMethodValues },
    klBeta: { type: 'number', minimum: 0 },
  },
} as const;

/**
 * The Reinforcement fine-tuning job resource (spec: Resources › Reinforcement fine-tuning job), with
 * `updateTime` added like every Berth resource. `acceleratorSeconds` maps an accelerator type to
 * seconds used, carried as int64 strings (wire convention for 64-bit integers).
 */
export const reinforcementFineTuningJobSchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    displayName: displayNameSchema,
    dataset: { type: 'string', maxLength: 512 },
    evaluator: { type: 'string', maxLength: 512 },
    createTime: timestampSchema,
    updateTime: timestampSchema,
    completedTime: timestampSchema,
    evaluationDataset: { type: 'string', maxLength: 512 },
    evalAutoCarveout: { type: 'boolean' },
    state: { type: 'string', enum: jobStateValues },
    status: statusSchema,
    createdBy: { type: 'string' },
    trainingConfig: trainingConfigSchema,
    trackerConfig: trackerConfigSchema,
    objectStoreConfig: objectStoreConfigSchema,
    outputStats: { type: 'string' },
    jobProgress: jobProgressSchema,
    inferenceParameters: rftInferenceParametersSchema,
    chunkSize: { type: 'integer', minimum: chunkSizeLimits.minimum, maximum: chunkSizeLimits.maximum },
    outputMetrics: { type: 'string' },
    mcpServer: { type: 'string', maxLength: 2083 },
    nodeCount: { type: 'integer', minimum: 1, maximum: 2147483647 },
    lossConfig: lossConfigSchema,
    trainerLogsSignedUrl: { type: 'string' },
    acceleratorSeconds: { type: 'object', additionalProperties: nonNegativeInt64Schema },
    maxConcurrentRollouts: nonNegativeInt32Schema,
    maxConcurrentEvaluations: nonNegativeInt32Schema,
    etag: etagSchema,
  },
} as const;

export type ReinforcementFineTuningJob = ResourceType<typeof reinforcementFineTuningJobSchema>;

export const reinforcementFineTuningJobOutputOnly = [
  'name', 'createTime', 'updateTime', 'completedTime', 'state', 'status', 'createdBy', 'outputStats',
  'jobProgress', 'outputMetrics', 'trainerLogsSignedUrl', 'acceleratorSeconds',
] as const;
