import type { FieldDeclarations } from '../../listing/fields.js';
import { commonFields } from '../common/fields.js';
import { precisionValues } from '../common/schema-parts.js';
import { presetTypeValues } from './deployment-shape-schema.js';

export const deploymentShapeFields: FieldDeclarations = {
  ...commonFields,
  baseModel: { path: ['baseModel'], type: 'string' },
  modelType: { path: ['modelType'], type: 'string' },
  parameterCount: { path: ['parameterCount'], type: 'int64' },
  // A string, not an enum: runtime plugins may declare types beyond the specification's.
  acceleratorType: { path: ['acceleratorType'], type: 'string' },
  acceleratorCount: { path: ['acceleratorCount'], type: 'int' },
  precision: { path: ['precision'], type: 'enum', enumValues: precisionValues },
  presetType: { path: ['presetType'], type: 'enum', enumValues: presetTypeValues },
  enableAddons: { path: ['enableAddons'], type: 'bool' },
  maxContextLength: { path: ['maxContextLength'], type: 'int' },
};
