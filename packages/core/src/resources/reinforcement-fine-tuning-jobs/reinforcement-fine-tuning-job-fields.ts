import type { FieldDeclarations } from '../../listing/fields.js';
import { commonFields } from '../common/fields.js';
import { jobStateValues } from '../common/schema-parts.js';
import { lossMethodValues } from './reinforcement-fine-tuning-job-schema.js';

/**
 * Fields usable in `filter` and `orderBy` on reinforcement fine-tuning jobs (snake_case or camelCase);
 * `createdTime` is an alias of `createTime`, as on batch jobs.
 */
export const reinforcementFineTuningJobFields: FieldDeclarations = {
  ...commonFields,
  createdTime: { path: ['createTime'], type: 'timestamp' },
  completedTime: { path: ['completedTime'], type: 'timestamp' },
  state: { path: ['state'], type: 'enum', enumValues: jobStateValues },
  dataset: { path: ['dataset'], type: 'string' },
  evaluator: { path: ['evaluator'], type: 'string' },
  evaluationDataset: { path: ['evaluationDataset'], type: 'string' },
  createdBy: { path: ['createdBy'], type: 'string' },
  'trainingConfig.baseModel': { path: ['trainingConfig', 'baseModel'], type: 'string' },
  'trainingConfig.outputModel': { path: ['trainingConfig', 'outputModel'], type: 'string' },
  'trainingConfig.warmStartFrom': { path: ['trainingConfig', 'warmStartFrom'], type: 'string' },
  'lossConfig.method': { path: ['lossConfig', 'method'], type: 'enum', enumValues: lossMethodValues },
  'jobProgress.percent': { path: ['jobProgress', 'percent'], type: 'double' },
};
