import { definePlugin, storageToken, type GatewayPlugin } from '../kernel/index.js';
import { MemoryStorage, type MemoryStorageOptions } from './memory-storage.js';

/**
 * The in-memory storage plugin: binds `storageToken` to a fresh {@link MemoryStorage}. No I/O, nothing
 * to start or stop; every gateway gets its own store. Published as `@berth/plugin-storage-memory`.
 */
export function memoryStorage(options: MemoryStorageOptions = {}): GatewayPlugin {
  return definePlugin({
    id: 'storage-memory',
    register(binder) {
      binder.bindValue(storageToken, new MemoryStorage(options));
    },
  });
}
