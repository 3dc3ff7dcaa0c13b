export * from './deployment-schema.js';
export * from './deployment-fields.js';
export * from './deployment-state-machine.js';
export * from './deployment-rules.js';
export * from './deployment-definition.js';
export * from './deployment-service.js';
export * from './deployment-purge.js';
export * from './deployment-api.js';
