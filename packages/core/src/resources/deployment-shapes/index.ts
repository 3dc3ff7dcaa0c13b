export * from './deployment-shape-schema.js';
export * from './deployment-shape-fields.js';
export * from './deployment-shape-definition.js';
export * from './deployment-shape-service.js';
export * from './deployment-shape-api.js';
