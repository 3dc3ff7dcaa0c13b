export * from './deployed-model-schema.js';
export * from './deployed-model-fields.js';
export * from './deployed-model-state-machine.js';
export * from './deployed-model-rules.js';
export * from './deployed-model-definition.js';
export * from './deployed-model-service.js';
export * from './deployed-model-lifecycle.js';
export * from './deployed-model-api.js';
