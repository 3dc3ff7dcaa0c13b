/**
 * @berth/plugin-storage-memory — every storage port in process memory. The store itself lives in
 * `@berth/core/storage-memory` (core's own tests use it as their fake); this package is the plugin
 * users install, with the same public API as before: `memoryStorage()` and `MemoryStorage`.
 */
export { memoryStorage, MemoryStorage, type MemoryStorageOptions } from '@berth/core/storage-memory';
