export * from './reinforcement-fine-tuning-job-schema.js';
export * from './reinforcement-fine-tuning-job-fields.js';
export * from './reinforcement-fine-tuning-job-state-machine.js';
export * from './reinforcement-fine-tuning-job-rules.js';
export * from './reinforcement-fine-tuning-job-definition.js';
export * from './reinforcement-fine-tuning-job-service.js';
export * from './reinforcement-fine-tuning-job-api.js';
