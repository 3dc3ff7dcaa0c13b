/**
 * What every blob store shares: the key rules, range resolution and hashing, so memory, filesystem,
 * PostgreSQL and S3 stores answer the same way.
 */
export * from './blob-keys.js';
export * from './blob-range.js';
export * from './blob-digest.js';
export * from './filesystem-blob-store.js';
export * from './blob-collect.js';
export * from './http-range.js';
export * from './blob-sweep.js';
