import { createGateway, queueWorkers, storageToken, systemContext, webhookOutboxToken } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { webhooks } from '@berth/plugin-webhooks';

/**
 * Benchmark target: a gateway with `webhooks()` and queue workers (concurrency from the third argument)
 * that, once started, records `count` webhooks to the receiver URL (each in its own transaction, as a
 * finished image request records its one) and lets its workers deliver them. It prints one JSON line when
 * it starts recording. With `postgres` it stores on PostgreSQL (DATABASE_URL, schema BENCH_SCHEMA).
 */
const [receiverUrl, countText = '1000', concurrencyText = '4', storageKind = 'memory'] = process.argv.slice(2);
if (!receiverUrl) throw new Error('usage: webhook-gateway.ts <receiver url> [count] [concurrency] [memory|postgres]');
const storage = storageKind === 'postgres'
  ? postgresStorage({ connectionString: process.env.DATABASE_URL, schema: process.env.BENCH_SCHEMA ?? 'berth_bench_webhooks' })
  : memoryStorage();
const gateway = createGateway({
  plugins: [storage, queueWorkers({ concurrency: Number(concurrencyText), pollIntervalMs: 20 }), apiKeyAuth(), webhooks()],
  config: { bootstrapAccountId: 'bench', bootstrapApiKey: 'bench-webhooks-key-000000000000000', allowLoopbackUrls: true },
});
await gateway.start();
const ctx = systemContext('bench-webhooks');
const outbox = gateway.resolve(webhookOutboxToken);
const store = gateway.resolve(storageToken);
const secret = `whsec_${Buffer.from('a webhook key of thirty-two byte').toString('base64')}`;
console.log(JSON.stringify({ url: receiverUrl, recording: Number(countText) }));
for (let i = 0; i < Number(countText); i += 1) {
  await store.transaction(ctx, (tx) =>
    outbox.enqueue(ctx, tx, {
      accountId: 'bench', url: `${receiverUrl}/hook/${i}`, secret, type: 'image.ready', subject: `req-${i}`,
      data: { id: `req-${i}`, status: 'Ready', result: { sample: `http://127.0.0.1/results/req-${i}`, seed: i }, progress: 1, details: null },
    }),
  );
}
process.on('SIGTERM', () => void gateway.stop().then(() => process.exit(0)));
