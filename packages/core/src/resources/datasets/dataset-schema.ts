import type { ResourceType, SchemaType } from '../common/schema-type.js';
import { displayNameSchema, nonNegativeInt64Schema, nameSchema, statusSchema, timestampSchema, etagSchema } from '../common/schema-parts.js';

export const datasetStateValues = ['STATE_UNSPECIFIED', 'UPLOADING', 'READY'] as const;
export type DatasetState = (typeof datasetStateValues)[number];
export const datasetFormatValues = ['FORMAT_UNSPECIFIED', 'CHAT', 'COMPLETION', 'RL'] as const;
export type DatasetFormat = (typeof datasetFormatValues)[number];

/**
 * The Dataset resource (spec: Resources › Dataset). The contents of `userUploaded` and `evalProtocol`
 * are not specified, so they are free-form objects.
 *
 * Berth extension: `sourceDataset` and `sourceFilter` (output only) record the lineage of a dataset
 * created with `sourceDatasetId` + `filter`: the full name of the dataset it was derived from and the
 * filter that selects its examples. The upload/derivation flow reads them to materialise the files.
 * `sourceJobName` stays what the client gave (the job that produced the dataset).
 *
 * Berth extension: `validationDetails` (output only) is what the upload's validation found besides the
 * usable rows: in a batch dataset (`custom_id` + `body` rows), the rows that cannot be used, counted in
 * `malformedRowCount` (int64 string) with the file, line and reason of the first 100 in `malformedRows`.
 * A batch job reading the dataset counts those rows as failed. Absent when every row is usable.
 */
export const datasetSchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    displayName: displayNameSchema,
    createTime: timestampSchema,
    updateTime: timestampSchema,
    state: { type: 'string', enum: datasetStateValues },
    status: statusSchema,
    exampleCount: nonNegativeInt64Schema,
    userUploaded: { type: 'object' },
    evalProtocol: { type: 'object' },
    externalUrl: { type: 'string', maxLength: 2083 },
    format: { type: 'string', enum: datasetFormatValues },
    createdBy: { type: 'string' },
    sourceJobName: { type: 'string', maxLength: 512 },
    estimatedTokenCount: nonNegativeInt64Schema,
    averageTurnCount: { type: 'number', minimum: 0 },
    sourceDataset: { type: 'string' },
    sourceFilter: { type: 'string' },
    validationDetails: {
      type: 'object',
      properties: {
        malformedRowCount: nonNegativeInt64Schema,
        malformedRows: {
          type: 'array',
          items: {
            type: 'object',
            properties: { filename: { type: 'string' }, line: { type: 'integer', minimum: 1 }, reason: { type: 'string' } },
            required: ['filename', 'line', 'reason'],
          },
        },
      },
    },
    etag: etagSchema,
  },
} as const;

export type Dataset = ResourceType<typeof datasetSchema>;

export const datasetOutputOnly = [
  'name', 'createTime', 'updateTime', 'state', 'status', 'createdBy', 'sourceDataset', 'sourceFilter', 'validationDetails',
] as const;

/** Longest accepted `filter` of a derived dataset. */
export const datasetFilterMaxLength = 2048;

/**
 * The create request body (`POST /v1/accounts/{a}/datasets`): the dataset plus its id and, to derive
 * from another dataset of the account, `sourceDatasetId` (bare id or full name) and `filter`. The
 * `dataset` object itself is checked against `datasetSchema`.
 */
export const createDatasetRequestSchema = {
  type: 'object',
  properties: {
    dataset: { type: 'object' },
    datasetId: { type: 'string' },
    sourceDatasetId: { type: 'string' },
    filter: { type: 'string', maxLength: datasetFilterMaxLength },
  },
} as const;

export type CreateDatasetRequest = SchemaType<typeof createDatasetRequestSchema>;
