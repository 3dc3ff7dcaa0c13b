export * from './tracing.js';
export * from './storage-tracing.js';
