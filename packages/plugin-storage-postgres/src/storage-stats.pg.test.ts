import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '@berth/core';
import { databaseUrl, openScenarioStorage } from './test-support.js';

const ctx = { requestId: 'storage-stats' };
let started: { storage: Storage; close(): Promise<void> };
beforeAll(async () => (started = await openScenarioStorage()));
afterAll(async () => started.close());

describe('storage stats (metrics gauges)', () => {
  it('counts jobs not completed by queue and state, and reports the pool when the driver has one', async () => {
    const { queue } = started.storage;
    for (let i = 0; i < 3; i++) await queue.enqueue(ctx, { queue: 'stats-a', payload: i });
    await queue.enqueue(ctx, { queue: 'stats-b', payload: 0 });
    const claimed = await queue.claim(ctx, 'stats-a', 'w1', 60_000);
    const done = await queue.claim(ctx, 'stats-b', 'w1', 60_000);
    await queue.complete(ctx, done!.id, done!.attempt);
    expect(claimed).toBeDefined();
    const stats = await started.storage.stats!(ctx);
    const sorted = [...stats.jobs].sort((a, b) => `${a.queue}${a.state}`.localeCompare(`${b.queue}${b.state}`));
    expect(sorted).toEqual([
      { queue: 'stats-a', state: 'leased', count: 1 },
      { queue: 'stats-a', state: 'queued', count: 2 },
    ]);
    // On PostgreSQL the test pool is a pg.Pool of 20; embedded PGlite has no pool to report.
    if (databaseUrl) {
      expect(stats.pool).toMatchObject({ max: 20 });
      expect(stats.pool!.total).toBeGreaterThanOrEqual(stats.pool!.idle);
    } else {
      expect(stats.pool).toBeUndefined();
    }
  });
});
