import type { FieldDeclarations } from '../../listing/fields.js';
import { commonFields } from '../common/fields.js';
import { deployedModelStateValues } from '../models/model-schema.js';

/** Fields usable in `filter` and `orderBy` on deployed models. */
export const deployedModelFields: FieldDeclarations = {
  ...commonFields,
  description: { path: ['description'], type: 'string' },
  model: { path: ['model'], type: 'string' },
  deployment: { path: ['deployment'], type: 'string' },
  state: { path: ['state'], type: 'enum', enumValues: deployedModelStateValues },
  default: { path: ['default'], type: 'bool' },
  public: { path: ['public'], type: 'bool' },
};
