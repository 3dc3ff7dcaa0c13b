export * from './user-schema.js';
export * from './user-fields.js';
export * from './user-state-machine.js';
export * from './user-rules.js';
export * from './user-definition.js';
export * from './user-service.js';

export * from './user-api.js';
