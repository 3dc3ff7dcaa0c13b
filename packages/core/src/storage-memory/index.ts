/**
 * @berth/core/storage-memory — every storage port in process memory: the store behind
 * `@berth/plugin-storage-memory`, and the storage fake `@berth/core/testing` hands to tests.
 */
export { MemoryStorage, type MemoryStorageOptions } from './memory-storage.js';
export { memoryStorage } from './memory-storage-plugin.js';
