export * from './common/index.js';
export * from './models/index.js';
export * from './datasets/index.js';
export * from './users/index.js';
export * from './deployment-shapes/index.js';
export * from './deployments/index.js';
export * from './batch-inference-jobs/index.js';
export * from './reinforcement-fine-tuning-jobs/index.js';
