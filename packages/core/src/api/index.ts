export * from './route-spec.js';
export * from './query.js';
export * from './resource-routes.js';
export * from './standard-operations.js';
export * from './create-method.js';
export * from './custom-method.js';
export * from './resource-api.js';
export * from './resource-module.js';
