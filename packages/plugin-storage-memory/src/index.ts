export { memoryStorage } from './memory-storage-plugin.js';
export { MemoryStorage, type MemoryStorageOptions } from './memory-storage.js';
