import type { ResourceType, SchemaType } from '../common/schema-type.js';
import { criterionTypeValues } from '../../evaluators/criteria.js';
import { descriptionSchema, displayNameSchema, etagSchema, nameSchema, statusSchema, timestampSchema } from '../common/schema-parts.js';

export const evaluatorStateValues = ['STATE_UNSPECIFIED', 'ACTIVE', 'BUILDING', 'BUILD_FAILED'] as const;
export type EvaluatorState = (typeof evaluatorStateValues)[number];

/** Most criteria one evaluator holds. */
export const maxCriteria = 16;

/**
 * One criterion (the reference's `criteria[]`: type, name, description, codeSnippets). `codeSnippets`
 * holds code (JavaScript, TypeScript or Python). Berth extensions, each the configuration of a built-in
 * criterion that needs no code: `exactMatch`, `regex`, `jsonSchema`, `remote` (their `type` values
 * EXACT_MATCH, REGEX, JSON_SCHEMA, REMOTE; with TYPE_UNSPECIFIED the kind is the one configuration given).
 */
export const criterionSchema = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: criterionTypeValues },
    name: { type: 'string', maxLength: 128 },
    description: descriptionSchema,
    codeSnippets: {
      type: 'object',
      properties: {
        language: { type: 'string', maxLength: 32 },
        fileContents: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 64 },
        entryFile: { type: 'string', maxLength: 256 },
        entryFunc: { type: 'string', maxLength: 128 },
      },
    },
    exactMatch: {
      type: 'object',
      description: 'Berth extension: 1 when the answer equals the row\'s ground-truth field, else 0.',
      properties: {
        groundTruthField: { type: 'string', maxLength: 128, description: 'Row field compared with; default `ground_truth` (then `groundTruth`).' },
        caseSensitive: { type: 'boolean', description: 'Default true.' },
        trimWhitespace: { type: 'boolean', description: 'Default true.' },
      },
    },
    regex: {
      type: 'object',
      description: 'Berth extension: 1 when the answer matches the regular expression, else 0.',
      properties: { pattern: { type: 'string', maxLength: 4096 }, flags: { type: 'string', pattern: '^[dgimsuvy]{0,8}$' } },
      required: ['pattern'],
    },
    jsonSchema: {
      type: 'object',
      description: 'Berth extension: 1 when the answer (or its first fenced block) is JSON valid against `schema`, else 0.',
      properties: { schema: { type: 'object' } },
      required: ['schema'],
    },
    remote: {
      type: 'object',
      description: 'Berth extension: POSTs the rollout to `url` (guarded outbound client) and reads `{score, reason?, metrics?}`.',
      properties: {
        url: { type: 'string', maxLength: 2083 },
        headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 4096 }, maxProperties: 32 },
      },
      required: ['url'],
    },
  },
} as const;
export type Criterion = SchemaType<typeof criterionSchema>;

/** The Evaluator resource (reference: Evaluator; states BUILDING → ACTIVE or BUILD_FAILED). */
export const evaluatorSchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    displayName: displayNameSchema,
    description: descriptionSchema,
    createTime: timestampSchema,
    createdBy: { type: 'string' },
    updateTime: timestampSchema,
    state: { type: 'string', enum: evaluatorStateValues },
    multiMetrics: { type: 'boolean' },
    criteria: { type: 'array', items: criterionSchema, maxItems: maxCriteria },
    requirements: { type: 'string', maxLength: 65536 },
    rollupSettings: {
      type: 'object',
      properties: {
        criteriaWeights: { type: 'object', additionalProperties: { type: 'number', minimum: 0 } },
        pythonCode: { type: 'string', maxLength: 65536 },
        successThreshold: { type: 'number', minimum: 0, maximum: 1 },
        skipRollup: { type: 'boolean' },
      },
    },
    entryPoint: { type: 'string', maxLength: 512 },
    status: statusSchema,
    commitHash: { type: 'string', maxLength: 128 },
    source: {
      type: 'object',
      properties: { type: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,62}$' }, githubRepositoryName: { type: 'string', maxLength: 512 } },
    },
    defaultDataset: { type: 'string', maxLength: 512 },
    etag: etagSchema,
  },
} as const;

export type Evaluator = ResourceType<typeof evaluatorSchema>;

export const evaluatorOutputOnly = ['name', 'createTime', 'updateTime', 'createdBy', 'state', 'status'] as const;

/** The create request body (`POST /v1/accounts/{a}/evaluators`): `{evaluator, evaluatorId}` as the reference sends it. */
export const createEvaluatorRequestSchema = {
  type: 'object',
  properties: { evaluator: evaluatorSchema, evaluatorId: { type: 'string' } },
} as const;
