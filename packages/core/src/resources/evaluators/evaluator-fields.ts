import type { FieldDeclarations } from '../../listing/fields.js';
import { commonFields } from '../common/fields.js';
import { evaluatorStateValues } from './evaluator-schema.js';

/** Fields usable in `filter` and `orderBy` on evaluators (snake_case or camelCase). */
export const evaluatorFields: FieldDeclarations = {
  ...commonFields,
  description: { path: ['description'], type: 'string' },
  state: { path: ['state'], type: 'enum', enumValues: evaluatorStateValues },
  createdBy: { path: ['createdBy'], type: 'string' },
  multiMetrics: { path: ['multiMetrics'], type: 'bool' },
  defaultDataset: { path: ['defaultDataset'], type: 'string' },
  commitHash: { path: ['commitHash'], type: 'string' },
  entryPoint: { path: ['entryPoint'], type: 'string' },
};
