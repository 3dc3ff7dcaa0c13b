export * from './batch-inference-job-schema.js';
export * from './batch-inference-job-fields.js';
export * from './batch-inference-job-state-machine.js';
export * from './batch-inference-job-rules.js';
export * from './batch-inference-job-definition.js';
export * from './batch-inference-job-service.js';
export * from './batch-inference-job-api.js';
