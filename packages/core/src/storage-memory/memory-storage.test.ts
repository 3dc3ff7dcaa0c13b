import { describe, expect, it } from 'vitest';
import { describeStorageContract } from '../testing/storage-contract.js';
import { MemoryStorage } from './memory-storage.js';
import { memoryStorage } from './memory-storage-plugin.js';

describeStorageContract('memory', async () => ({ storage: new MemoryStorage(), cleanup: async () => {} }), { blobs: { holdsObjectsInProcess: true } });

describe('memory storage stats (metrics gauges)', () => {
  it('counts jobs not completed by queue and state, and reports no pool', async () => {
    const storage = new MemoryStorage();
    const ctx = { requestId: 'storage-stats' };
    for (let i = 0; i < 3; i++) await storage.queue.enqueue(ctx, { queue: 'stats-a', payload: i });
    await storage.queue.enqueue(ctx, { queue: 'stats-b', payload: 0 });
    expect(await storage.queue.claim(ctx, 'stats-a', 'w1', 60_000)).toBeDefined();
    const done = await storage.queue.claim(ctx, 'stats-b', 'w1', 60_000);
    await storage.queue.complete(ctx, done!.id, done!.attempt);
    const stats = await storage.stats(ctx);
    const sorted = [...stats.jobs].sort((a, b) => `${a.queue}${a.state}`.localeCompare(`${b.queue}${b.state}`));
    expect(sorted).toEqual([
      { queue: 'stats-a', state: 'leased', count: 1 },
      { queue: 'stats-a', state: 'queued', count: 2 },
    ]);
    expect(stats.pool).toBeUndefined();
  });
});

describe('memoryStorage()', () => {
  it('without an OpenTelemetry SDK binds the store itself, with no tracing wrapper', () => {
    let bound: unknown;
    memoryStorage().register({ bindValue: (_token: unknown, value: unknown) => { bound = value; } } as never);
    expect(bound).toBeInstanceOf(MemoryStorage);
  });
});
