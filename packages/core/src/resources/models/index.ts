export * from './model-schema.js';
export * from './model-fields.js';
export * from './model-state-machine.js';
export * from './model-rules.js';
export * from './model-definition.js';
export * from './model-service.js';
export * from './model-api.js';
export * from './model-files.js';
