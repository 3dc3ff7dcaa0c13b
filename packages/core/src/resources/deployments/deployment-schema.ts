import type { ResourceType } from '../common/schema-type.js';
import {
  acceleratorTypeSchema, descriptionSchema, displayNameSchema, durationSchema, int32Schema, nameSchema,
  nonNegativeInt32Schema, precisionSchema, regionSchema, statusSchema, timestampSchema, etagSchema,
} from '../common/schema-parts.js';

export const deploymentStateValues = ['STATE_UNSPECIFIED', 'CREATING', 'READY', 'DELETING', 'FAILED', 'UPDATING', 'DELETED'] as const;
export type DeploymentState = (typeof deploymentStateValues)[number];
export const multiRegionValues = ['MULTI_REGION_UNSPECIFIED', 'GLOBAL', 'US', 'EUROPE', 'APAC'] as const;

export const autoscalingPolicySchema = {
  type: 'object',
  properties: {
    scaleUpWindow: durationSchema,
    scaleDownWindow: durationSchema,
    scaleToZeroWindow: durationSchema,
    loadTargets: { type: 'object', additionalProperties: { type: 'number', minimum: 0 } },
  },
} as const;

export const replicaStatsSchema = {
  type: 'object',
  properties: {
    pendingSchedulingReplicaCount: nonNegativeInt32Schema,
    downloadingModelReplicaCount: nonNegativeInt32Schema,
    initializingReplicaCount: nonNegativeInt32Schema,
    readyReplicaCount: nonNegativeInt32Schema,
  },
} as const;

/**
 * The Deployment resource: the spec's listed fields, the server-set fields of the facts file, plus
 * `deploymentShape` (the shape it was made from) and `enableSessionAffinity` (from the shape).
 */
export const deploymentSchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    displayName: displayNameSchema,
    description: descriptionSchema,
    createTime: timestampSchema,
    expireTime: timestampSchema,
    purgeTime: timestampSchema,
    deleteTime: timestampSchema,
    updateTime: timestampSchema,
    state: { type: 'string', enum: deploymentStateValues },
    status: statusSchema,
    minReplicaCount: nonNegativeInt32Schema,
    maxReplicaCount: nonNegativeInt32Schema,
    replicaCount: nonNegativeInt32Schema,
    desiredReplicaCount: nonNegativeInt32Schema,
    replicaStats: replicaStatsSchema,
    autoscalingPolicy: autoscalingPolicySchema,
    baseModel: { type: 'string' },
    acceleratorCount: { ...int32Schema, minimum: 1 },
    acceleratorType: acceleratorTypeSchema,
    precision: precisionSchema,
    cluster: { type: 'string' },
    enableAddons: { type: 'boolean' },
    draftTokenCount: { ...int32Schema, minimum: 1 },
    draftModel: { type: 'string' },
    ngramSpeculationLength: nonNegativeInt32Schema,
    numPeftDeviceCached: nonNegativeInt32Schema,
    deploymentTemplate: { type: 'string' },
    deploymentShape: { type: 'string' },
    enableSessionAffinity: { type: 'boolean' },
    autoTune: { type: 'object', properties: { longPrompt: { type: 'boolean' } } },
    placement: {
      type: 'object',
      properties: {
        region: regionSchema,
        multiRegion: { type: 'string', enum: multiRegionValues },
        regions: { type: 'array', items: regionSchema },
      },
    },
    region: regionSchema,
    disableDeploymentSizeValidation: { type: 'boolean' },
    enableMtp: { type: 'boolean' },
    etag: etagSchema,
  },
} as const;

export type Deployment = ResourceType<typeof deploymentSchema>;

export const deploymentOutputOnly = [
  'name', 'createTime', 'updateTime', 'deleteTime', 'purgeTime', 'state', 'status', 'replicaCount',
  'desiredReplicaCount', 'replicaStats', 'cluster', 'region',
] as const;
