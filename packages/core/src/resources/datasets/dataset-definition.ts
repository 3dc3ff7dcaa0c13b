import type { ResourceDefinition } from '../common/resource-definition.js';
import { datasetFields } from './dataset-fields.js';
import { applyDatasetCreateRules } from './dataset-rules.js';
import { datasetOutputOnly, datasetSchema, type Dataset } from './dataset-schema.js';
import { datasetStateMachine } from './dataset-state-machine.js';

/**
 * Datasets: create, get, list, delete (no update in the API). `DatasetService.create` handles the
 * request wrapper and derivation; `prepareCreate` here covers a plain create through `ResourceService`.
 */
export const datasetDefinition: ResourceDefinition<Dataset> = {
  collection: 'datasets',
  singular: 'dataset',
  schema: datasetSchema,
  outputOnly: datasetOutputOnly,
  immutable: ['format', 'externalUrl', 'sourceJobName'],
  fields: datasetFields,
  defaultOrder: 'create_time',
  stateMachine: datasetStateMachine,
  prepareCreate: (ctx, data) => applyDatasetCreateRules(data, { createdBy: ctx.principal?.email }),
};
