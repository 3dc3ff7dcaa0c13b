export * from './evaluator-schema.js';
export * from './evaluator-fields.js';
export * from './evaluator-state-machine.js';
export * from './evaluator-rules.js';
export * from './evaluator-definition.js';
export * from './evaluator-service.js';
export * from './evaluator-build.js';
export * from './evaluator-api.js';
