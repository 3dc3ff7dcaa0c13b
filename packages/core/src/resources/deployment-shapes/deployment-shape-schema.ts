import type { ResourceType } from '../common/schema-type.js';
import {
  acceleratorTypeSchema, descriptionSchema, displayNameSchema, int32Schema, nonNegativeInt64Schema, nameSchema, precisionSchema,
  timestampSchema, etagSchema,
} from '../common/schema-parts.js';

export const presetTypeValues = [
  'PRESET_TYPE_UNSPECIFIED', 'MINIMAL', 'FAST', 'THROUGHPUT', 'FULL_PRECISION', 'AGENTIC_CODING', 'CHAT', 'SUMMARIZATION',
] as const;

/** The Deployment shape resource (spec: Resources › Deployment shape). */
export const deploymentShapeSchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    baseModel: { type: 'string' },
    displayName: displayNameSchema,
    description: descriptionSchema,
    createTime: timestampSchema,
    updateTime: timestampSchema,
    modelType: { type: 'string' },
    parameterCount: nonNegativeInt64Schema,
    acceleratorCount: { ...int32Schema, minimum: 1 },
    acceleratorType: acceleratorTypeSchema,
    precision: precisionSchema,
    disableDeploymentSizeValidation: { type: 'boolean' },
    enableAddons: { type: 'boolean' },
    draftTokenCount: { ...int32Schema, minimum: 1 },
    draftModel: { type: 'string' },
    ngramSpeculationLength: { ...int32Schema, minimum: 0 },
    enableSessionAffinity: { type: 'boolean' },
    numLoraDeviceCached: { ...int32Schema, minimum: 0 },
    maxContextLength: { ...int32Schema, minimum: 0 },
    presetType: { type: 'string', enum: presetTypeValues },
    etag: etagSchema,
  },
} as const;

export type DeploymentShape = ResourceType<typeof deploymentShapeSchema>;

export const deploymentShapeOutputOnly = ['name', 'createTime', 'updateTime'] as const;
