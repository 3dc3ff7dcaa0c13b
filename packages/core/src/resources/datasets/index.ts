export * from './dataset-schema.js';
export * from './dataset-fields.js';
export * from './dataset-state-machine.js';
export * from './dataset-rules.js';
export * from './dataset-definition.js';
export * from './dataset-service.js';
export * from './dataset-files.js';
export * from './dataset-api.js';
