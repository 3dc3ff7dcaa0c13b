import { definePlugin, type GatewayPlugin } from '../kernel/plugin.js';
import { clockToken, storageToken, telemetryToken } from '../kernel/tokens.js';
import { queueHandlersToken, queueWakeupsToken } from './tokens.js';
import { QueueWorkerPool, type QueueWorkerPoolSettings } from '../workers/queue-worker-pool.js';

export type QueueWorkersOptions = QueueWorkerPoolSettings;

/**
 * Runs every handler contributed to `queueHandlersToken` in a {@link QueueWorkerPool}, started with the
 * gateway and stopped with it. Register it after the storage plugin: plugins start in order and stop
 * in reverse, so the workers then stop (and finish their jobs) before storage closes.
 */
export function queueWorkers(options: QueueWorkersOptions = {}): GatewayPlugin {
  let pool: QueueWorkerPool | undefined;
  let unsubscribe: (() => void) | undefined;
  return definePlugin({
    id: 'queue-workers',
    register() {},
    start({ resolver, logger }) {
      pool = new QueueWorkerPool({
        ...options,
        storage: resolver.resolve(storageToken),
        handlers: resolver.resolveAll(queueHandlersToken),
        resolver,
        logger,
        clock: resolver.resolve(clockToken),
        telemetry: resolver.resolve(telemetryToken),
      });
      pool.start();
      const started = pool;
      // Work enqueued in this process (a background response) starts at once, not at the next poll.
      unsubscribe = resolver.isBound(queueWakeupsToken) ? resolver.resolve(queueWakeupsToken).subscribe(() => started.poke()) : undefined;
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      const running = pool;
      pool = undefined;
      await running?.stop();
    },
  });
}
