import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '@berth/core';
import { openTestDatabase, startOnFreshSchema, type TestDatabase } from './test-support.js';

const ctx = { requestId: 'kv-sweep' };
let database: TestDatabase;
let started: { storage: Storage; schema: string; cleanup(): Promise<void> };

beforeAll(async () => {
  database = await openTestDatabase();
  started = await startOnFreshSchema(database);
});
afterAll(async () => {
  await started.cleanup();
  await database.close();
});

const rowCount = async () => Number((await database.pool.query(`SELECT count(*)::int AS n FROM "${started.schema}".berth_kv`)).rows[0]?.n);

describe('expired key-value rows are swept', () => {
  it('removes expired rows in the background of ttl writes, and never live ones', async () => {
    const { kv } = started.storage;
    await kv.set(ctx, 'keep-forever', 1);
    await kv.set(ctx, 'keep-live', 1, { ttlMs: 60_000 });
    for (let i = 0; i < 100; i += 1) await kv.set(ctx, `short-${i}`, i, { ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await rowCount()).toBe(102);
    // 1 + 100 + 155 = 256 ttl writes trigger a sweep; the counters are long-lived, so only expired rows go.
    for (let i = 0; i < 155; i += 1) await kv.increment(ctx, `counter-${i % 4}`, 1, 60_000);
    expect(await rowCount()).toBe(2 + 4);
    expect(await kv.get(ctx, 'keep-forever')).toBe(1);
    expect(await kv.get(ctx, 'keep-live')).toBe(1);
    expect(await kv.get(ctx, 'counter-0')).toBe(39);
  });
});
