import type { FieldDeclarations } from '../../listing/fields.js';
import { precisionValues } from '../common/schema-parts.js';
import { commonFields } from '../common/fields.js';
import { checkpointFormatValues, modelKindValues, modelStateValues } from './model-schema.js';

/** Fields usable in `filter` and `orderBy` on models. */
export const modelFields: FieldDeclarations = {
  ...commonFields,
  description: { path: ['description'], type: 'string' },
  state: { path: ['state'], type: 'enum', enumValues: modelStateValues },
  kind: { path: ['kind'], type: 'enum', enumValues: modelKindValues },
  public: { path: ['public'], type: 'bool' },
  contextLength: { path: ['contextLength'], type: 'int' },
  supportsTools: { path: ['supportsTools'], type: 'bool' },
  supportsImageInput: { path: ['supportsImageInput'], type: 'bool' },
  supportsLora: { path: ['supportsLora'], type: 'bool' },
  'baseModelDetails.parameterCount': { path: ['baseModelDetails', 'parameterCount'], type: 'int64' },
  'baseModelDetails.modelType': { path: ['baseModelDetails', 'modelType'], type: 'string' },
  'baseModelDetails.checkpointFormat': { path: ['baseModelDetails', 'checkpointFormat'], type: 'enum', enumValues: checkpointFormatValues },
  'baseModelDetails.moe': { path: ['baseModelDetails', 'moe'], type: 'bool' },
  'peftDetails.baseModel': { path: ['peftDetails', 'baseModel'], type: 'string' },
  supportedPrecisions: { path: ['supportedPrecisions'], type: 'enum', enumValues: precisionValues, repeated: true, sortable: false },
};
