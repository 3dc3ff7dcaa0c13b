import type { ResourceType } from '../common/schema-type.js';
import { descriptionSchema, displayNameSchema, nameSchema, statusSchema, timestampSchema, etagSchema } from '../common/schema-parts.js';
import { deployedModelStateValues } from '../models/model-schema.js';

export type DeployedModelState = (typeof deployedModelStateValues)[number];

/**
 * The DeployedModel resource, `accounts/{a}/deployedModels/{id}`: one model (a base model or a PEFT add-on)
 * served by one deployment. Model GET shows these as `deployedModelRefs`.
 */
export const deployedModelSchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    displayName: displayNameSchema,
    description: descriptionSchema,
    createTime: timestampSchema,
    updateTime: timestampSchema,
    model: { type: 'string' },
    deployment: { type: 'string' },
    default: { type: 'boolean' },
    public: { type: 'boolean' },
    state: { type: 'string', enum: deployedModelStateValues },
    status: statusSchema,
    etag: etagSchema,
  },
} as const;

export type DeployedModel = ResourceType<typeof deployedModelSchema>;

export const deployedModelOutputOnly = ['name', 'createTime', 'updateTime', 'default', 'state', 'status'] as const;
