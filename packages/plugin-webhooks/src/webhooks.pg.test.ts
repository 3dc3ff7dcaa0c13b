import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { GatewayPlugin } from '@berth/core';
import { pglitePool, postgresStorage } from '@berth/plugin-storage-postgres';
import { emit, readDelivery, startReceiver, verifyReceived, waitFor, webhookGateway } from './test-fixtures.js';

/**
 * Durability on PostgreSQL: a gateway records a result's webhook and stops before delivering it; another
 * gateway on the same database (a restart) delivers it, retrying on the database's queue. With
 * DATABASE_URL each gateway opens its own pool, as two processes would; without it they share one PGlite.
 */
const databaseUrl = process.env.DATABASE_URL || undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<() => GatewayPlugin> {
  const schema = `berth_webhooks_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  if (databaseUrl === undefined) {
    const db = await PGlite.create();
    const pool = pglitePool(db);
    cleanups.push(() => db.close());
    return () => postgresStorage({ pool, schema });
  }
  cleanups.push(async () => {
    const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await admin.end();
    }
  });
  return () => postgresStorage({ connectionString: databaseUrl, schema, maxConnections: 4 });
}

describe(`webhooks on PostgreSQL${databaseUrl === undefined ? ' (PGlite)' : ''}`, () => {
  it('delivers a webhook recorded before a restart, retrying on the database queue, once per schedule', async () => {
    const storage = await database();
    const hook = await startReceiver(['fail-500', 'ok']);
    cleanups.push(() => hook.close());
    const secret = 'whsec_' + Buffer.from('a key of thirty-two bytes, exact').toString('base64');
    // PGlite runs on this thread, so an attempt gets time to spare.
    const fast = { attemptTimeoutMs: 10_000, backoff: { initialMs: 50, multiplier: 2, maxMs: 1_000, jitter: 0 } };

    const first = webhookGateway(storage(), undefined, { workers: false, webhooks: fast });
    await first.start();
    const { name, webhookId } = await emit(first, { accountId: 'acme', url: hook.url, secret, type: 'image.ready', data: { id: 'req-9', status: 'Ready' } });
    await first.stop();
    expect(hook.hooks()).toHaveLength(0);

    const second = webhookGateway(storage(), undefined, { webhooks: fast });
    await second.start();
    cleanups.push(() => second.stop());
    await waitFor(async () => (await readDelivery(second, name)).state !== 'PENDING', 'the delivery to end');
    const delivery = await readDelivery(second, name);
    expect(delivery).toMatchObject({ state: 'SUCCEEDED', attemptCount: 2, webhookId });
    expect(delivery.attempts?.map((a) => a.statusCode)).toEqual([500, 204]);
    expect(hook.hooks()).toHaveLength(2);
    for (const received of hook.hooks()) {
      expect(received.headers['webhook-id']).toBe(webhookId);
      expect(verifyReceived(received, new Webhook(secret))).toMatchObject({ data: { id: 'req-9' } });
    }
  });
});
