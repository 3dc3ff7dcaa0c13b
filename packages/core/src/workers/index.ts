export * from './backoff.js';
export * from './exactly-once.js';
export * from './queue-handler.js';
export * from './queue-worker-pool.js';
export * from './queue-wakeups.js';
