import type { ResourceType } from '../common/schema-type.js';
import {
  dateSchema, descriptionSchema, displayNameSchema, int32Schema, nonNegativeInt64Schema, nameSchema, precisionSchema,
  statusSchema, timestampSchema, etagSchema,
} from '../common/schema-parts.js';

export const modelStateValues = ['STATE_UNSPECIFIED', 'UPLOADING', 'READY'] as const;
export const modelKindValues = [
  'KIND_UNSPECIFIED', 'HUB_BASE_MODEL', 'HUB_PEFT_ADDON', 'HUB_TEFT_ADDON', 'ENGINE_BASE_MODEL', 'ENGINE_ADDON',
  'DRAFT_ADDON', 'AGENT_MODEL', 'LIVE_MERGE', 'CUSTOM_MODEL', 'EMBEDDING_MODEL', 'SNAPSHOT_MODEL',
] as const;
export const checkpointFormatValues = ['CHECKPOINT_FORMAT_UNSPECIFIED', 'NATIVE', 'HUB', 'UNINITIALIZED'] as const;
export const deployedModelStateValues = ['STATE_UNSPECIFIED', 'UNDEPLOYING', 'DEPLOYING', 'DEPLOYED', 'UPDATING'] as const;

export const baseModelDetailsSchema = {
  type: 'object',
  properties: {
    worldSize: { ...int32Schema, minimum: 1 },
    checkpointFormat: { type: 'string', enum: checkpointFormatValues },
    hubFiles: { type: 'array', items: { type: 'string' } },
    parameterCount: nonNegativeInt64Schema,
    moe: { type: 'boolean' },
    tunable: { type: 'boolean' },
    modelType: { type: 'string' },
    supportsOptimizedAttention: { type: 'boolean' },
    defaultPrecision: precisionSchema,
    supportsMtp: { type: 'boolean' },
  },
} as const;

export const peftDetailsSchema = {
  type: 'object',
  properties: {
    baseModel: { type: 'string' },
    r: { type: 'integer', minimum: 4, maximum: 64 },
    targetModules: { type: 'array', items: { type: 'string' } },
    baseModelType: { type: 'string' },
    mergeAddonModelName: { type: 'string' },
  },
  required: ['baseModel', 'r', 'targetModules'],
} as const;

export const deployedModelRefSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    deployment: { type: 'string' },
    state: { type: 'string', enum: deployedModelStateValues },
    default: { type: 'boolean' },
    public: { type: 'boolean' },
  },
} as const;

/** The Model resource (spec: Resources › Model). */
export const modelSchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    displayName: displayNameSchema,
    description: descriptionSchema,
    createTime: timestampSchema,
    updateTime: timestampSchema,
    state: { type: 'string', enum: modelStateValues },
    status: statusSchema,
    kind: { type: 'string', enum: modelKindValues },
    githubUrl: { type: 'string', maxLength: 2083 },
    modelHubUrl: { type: 'string', maxLength: 2083 },
    baseModelDetails: baseModelDetailsSchema,
    peftDetails: peftDetailsSchema,
    teftDetails: { type: 'object', properties: {} },
    public: { type: 'boolean' },
    conversationConfig: {
      type: 'object',
      properties: { style: { type: 'string' }, system: { type: 'string' }, template: { type: 'string' } },
      required: ['style'],
    },
    contextLength: { ...int32Schema, minimum: 0 },
    trainingContextLength: { ...int32Schema, minimum: 0 },
    supportsImageInput: { type: 'boolean' },
    supportsTools: { type: 'boolean' },
    importedFrom: { type: 'string' },
    fineTuningJob: { type: 'string' },
    defaultDraftModel: { type: 'string' },
    defaultDraftTokenCount: { ...int32Schema, minimum: 1 },
    deployedModelRefs: { type: 'array', items: deployedModelRefSchema },
    cluster: { type: 'string' },
    deprecationDate: dateSchema,
    calibrated: { type: 'boolean' },
    tunable: { type: 'boolean' },
    rlTunable: { type: 'boolean' },
    supportsLora: { type: 'boolean' },
    useHubApplyChatTemplate: { type: 'boolean' },
    defaultSamplingParams: { type: 'object', additionalProperties: { type: 'number' } },
    snapshotType: { type: 'string', enum: ['FULL_SNAPSHOT', 'INCREMENTAL_SNAPSHOT'] },
    supportsServerless: { type: 'boolean' },
    supervisedLoraTunable: { type: 'boolean' },
    supervisedFullParameterTunable: { type: 'boolean' },
    rlLoraTunable: { type: 'boolean' },
    rlFullParameterTunable: { type: 'boolean' },
    supportedPrecisions: { type: 'array', items: precisionSchema },
    supportedPrecisionsWithCalibration: { type: 'array', items: precisionSchema },
    etag: etagSchema,
  },
} as const;

export type Model = ResourceType<typeof modelSchema>;

export const modelOutputOnly = [
  'name', 'createTime', 'updateTime', 'state', 'status', 'importedFrom', 'fineTuningJob', 'deployedModelRefs',
  'cluster', 'calibrated', 'tunable', 'rlTunable', 'defaultSamplingParams', 'supportsServerless',
  'supervisedLoraTunable', 'supervisedFullParameterTunable', 'rlLoraTunable', 'rlFullParameterTunable',
  'baseModelDetails.defaultPrecision', 'peftDetails.baseModelType',
] as const;
