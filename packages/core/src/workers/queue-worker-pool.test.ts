import { describe, expect, it } from 'vitest';
import { MemoryStorage, memoryStorage } from '../testing/index.js';
import { createGateway } from '../services/create-gateway.js';
import { definePlugin } from '../kernel/plugin.js';
import { systemContext } from '../kernel/request-context.js';
import { storageToken } from '../kernel/tokens.js';
import { staticTokenAuth } from '../testing/test-gateway.js';
import { retryDelayMs } from './backoff.js';
import { defineQueueHandler } from './queue-handler.js';
import { queueHandlersToken, queueWakeupsToken } from '../services/tokens.js';
import { QueueWorkerPool } from './queue-worker-pool.js';
import { queueWorkers } from '../services/queue-workers-plugin.js';
import { describeQueueWorkerScenarios, waitFor } from '../testing/queue-worker-scenarios.js';

describeQueueWorkerScenarios('memory storage', async () => ({ storage: new MemoryStorage(), close: async () => undefined }));

describe('retryDelayMs', () => {
  it('grows exponentially up to the cap, with a bounded random part', () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, { initialMs: 100, jitter: 0 }))).toEqual([100, 200, 400, 800]);
    expect(retryDelayMs(30, { initialMs: 100, maxMs: 5000, jitter: 0 })).toBe(5000);
    expect(retryDelayMs(1, { initialMs: 1000, jitter: 0.2 }, () => 0)).toBe(800);
    expect(retryDelayMs(1, { initialMs: 1000, jitter: 0.2 }, () => 1)).toBe(1000);
  });
});

describe('defineQueueHandler and the pool', () => {
  const handle = async () => undefined;
  it('rejects bad queue names, tiny leases and two handlers for one queue', () => {
    expect(() => defineQueueHandler({ queue: 'Bad Name', handle })).toThrow(/lowercase/);
    expect(() => defineQueueHandler({ queue: 'ok', leaseMs: 5, handle })).toThrow(/leaseMs/);
    const one = defineQueueHandler({ queue: 'same', handle });
    expect(() => new QueueWorkerPool({ storage: new MemoryStorage(), handlers: [one, one] })).toThrow(/two queue handlers/);
    expect(() => new QueueWorkerPool({ storage: new MemoryStorage(), handlers: [one], concurrency: 0 })).toThrow(/concurrency/);
  });
});

describe('queueWorkers plugin', () => {
  it('runs contributed handlers with the gateway and stops with it', async () => {
    const seen: string[] = [];
    const handlers = definePlugin({
      id: 'test-handlers',
      register(binder) {
        binder.contribute(
          queueHandlersToken,
          defineQueueHandler({
            queue: 'greetings',
            async handle(ctx, job) {
              expect(ctx.resolver.resolve(storageToken)).toBe(ctx.storage);
              seen.push(String(job.payload));
              return 'done';
            },
          }),
        );
      },
    });
    const gateway = createGateway({ plugins: [memoryStorage(), staticTokenAuth({}), handlers, queueWorkers({ pollIntervalMs: 10, workerId: 'w1' })] });
    await gateway.start();
    const storage = gateway.resolve(storageToken);
    const ctx = systemContext('test');
    const job = await storage.queue.enqueue(ctx, { queue: 'greetings', payload: 'hello' });
    await waitFor(async () => (await storage.queue.get(ctx, job.id))?.state === 'completed', 5000, 'completion');
    expect(seen).toEqual(['hello']);
    expect(await storage.queue.get(ctx, job.id)).toMatchObject({ result: 'done' });
    await gateway.stop();
    expect(gateway.state).toBe('stopped');
  });

  it('starts work enqueued in this process at once when woken, not at the next poll', async () => {
    const handlers = definePlugin({
      id: 'test-handlers',
      register(binder) {
        binder.contribute(queueHandlersToken, defineQueueHandler({ queue: 'urgent', handle: async () => 'done' }));
      },
    });
    // A poll a minute apart: only the wake can start the job within the wait below.
    const gateway = createGateway({ plugins: [memoryStorage(), staticTokenAuth({}), handlers, queueWorkers({ pollIntervalMs: 60_000, concurrency: 1 })] });
    await gateway.start();
    const storage = gateway.resolve(storageToken);
    const ctx = systemContext('test');
    await new Promise((resolve) => setTimeout(resolve, 20)); // the worker's first, empty poll
    const job = await storage.queue.enqueue(ctx, { queue: 'urgent', payload: 'now' });
    gateway.resolve(queueWakeupsToken).wake();
    await waitFor(async () => (await storage.queue.get(ctx, job.id))?.state === 'completed', 5000, 'completion');
    await gateway.stop();
    gateway.resolve(queueWakeupsToken).wake(); // nothing subscribed any more
  });
});
