import type { FieldDeclarations } from '../../listing/fields.js';
import { commonFields } from '../common/fields.js';
import { precisionValues } from '../common/schema-parts.js';
import { batchInferenceJobStateValues } from './batch-inference-job-schema.js';

/**
 * Fields usable in `filter` and `orderBy` on batch inference jobs (snake_case or camelCase). The
 * reference names the default order `created_time`: `createdTime` is an alias of `createTime`.
 */
export const batchInferenceJobFields: FieldDeclarations = {
  ...commonFields,
  createdTime: { path: ['createTime'], type: 'timestamp' },
  state: { path: ['state'], type: 'enum', enumValues: batchInferenceJobStateValues },
  model: { path: ['model'], type: 'string' },
  inputDatasetId: { path: ['inputDatasetId'], type: 'string' },
  outputDatasetId: { path: ['outputDatasetId'], type: 'string' },
  continuedFromJobName: { path: ['continuedFromJobName'], type: 'string' },
  createdBy: { path: ['createdBy'], type: 'string' },
  precision: { path: ['precision'], type: 'enum', enumValues: precisionValues },
  'jobProgress.percent': { path: ['jobProgress', 'percent'], type: 'double' },
};
