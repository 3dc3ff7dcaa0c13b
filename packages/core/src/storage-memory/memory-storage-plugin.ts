import { definePlugin, storageToken, type GatewayPlugin } from '../kernel/index.js';
import { traceStorage, tracingEnabled } from '../tracing/index.js';
import { MemoryStorage, type MemoryStorageOptions } from './memory-storage.js';

/**
 * The in-memory storage plugin: binds `storageToken` to a fresh {@link MemoryStorage}. No I/O, nothing
 * to start or stop; every gateway gets its own store. Published as `@berth/plugin-storage-memory`. With an
 * OpenTelemetry SDK registered when the gateway is built, every storage call is a span (`traceStorage`).
 */
export function memoryStorage(options: MemoryStorageOptions = {}): GatewayPlugin {
  return definePlugin({
    id: 'storage-memory',
    register(binder) {
      const storage = new MemoryStorage(options);
      binder.bindValue(storageToken, tracingEnabled() ? traceStorage(storage, 'memory') : storage);
    },
  });
}
