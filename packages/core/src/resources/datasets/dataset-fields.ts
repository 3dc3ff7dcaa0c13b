import type { FieldDeclarations } from '../../listing/fields.js';
import { commonFields } from '../common/fields.js';
import { datasetFormatValues, datasetStateValues } from './dataset-schema.js';

/** Fields usable in `filter` and `orderBy` on datasets (snake_case or camelCase). */
export const datasetFields: FieldDeclarations = {
  ...commonFields,
  state: { path: ['state'], type: 'enum', enumValues: datasetStateValues },
  format: { path: ['format'], type: 'enum', enumValues: datasetFormatValues },
  exampleCount: { path: ['exampleCount'], type: 'int64' },
  estimatedTokenCount: { path: ['estimatedTokenCount'], type: 'int64' },
  averageTurnCount: { path: ['averageTurnCount'], type: 'double' },
  externalUrl: { path: ['externalUrl'], type: 'string' },
  createdBy: { path: ['createdBy'], type: 'string' },
  sourceJobName: { path: ['sourceJobName'], type: 'string' },
  sourceDataset: { path: ['sourceDataset'], type: 'string' },
};
