import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startChildServer } from '../lib/child-server.js';
import { cpuMicros, printTable } from '../lib/load.js';

/**
 * Webhook deliveries per second to a loopback receiver: a gateway child (`webhook-gateway.ts`) records
 * BENCH_WEBHOOKS webhooks one transaction each while its queue workers deliver them (signed, through the
 * guarded egress client) to a receiver in this process answering 204. The rate is deliveries received
 * over the time from the first recording to the last arrival; every delivery must arrive exactly once.
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export interface WebhookRate {
  readonly storage: string;
  readonly concurrency: number;
  readonly perSecond: number;
}

async function measure(count: number, concurrency: number, storage: 'memory' | 'postgres', databaseUrl: string, schema: string): Promise<WebhookRate & { cpuUsPerDelivery: number; duplicates: number }> {
  const seen = new Map<string, number>();
  let started = 0n;
  let last = 0n;
  let done: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (done = resolve));
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      last = process.hrtime.bigint();
      response.writeHead(204).end();
      if (seen.size === count) done();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const child = await startChildServer(here('./webhook-gateway.ts'), [url, String(count), String(concurrency), storage], { DATABASE_URL: databaseUrl, BENCH_SCHEMA: schema });
  started = process.hrtime.bigint();
  const cpuBefore = cpuMicros(child.pid);
  const timeout = setTimeout(() => done(), 120_000);
  await all;
  clearTimeout(timeout);
  const cpuAfter = cpuMicros(child.pid);
  await child.stop();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  if (seen.size !== count) throw new Error(`${seen.size} of ${count} webhooks arrived within 120 s`);
  const seconds = Number(last - started) / 1e9;
  const duplicates = [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
  return {
    storage, concurrency, perSecond: count / seconds, duplicates,
    cpuUsPerDelivery: cpuBefore === undefined || cpuAfter === undefined ? Number.NaN : (cpuAfter - cpuBefore) / count,
  };
}

export async function runWebhookDeliveryBenchmark(): Promise<WebhookRate[]> {
  const count = Number(process.env.BENCH_WEBHOOKS ?? 1000);
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const loadBefore = loadavg();
  const results = [];
  for (const storage of ['memory', 'postgres'] as const) {
    for (const concurrency of [4, 16]) {
      const schema = `berth_bench_webhooks_${Date.now().toString(36)}`;
      try {
        results.push(await measure(count, concurrency, storage, databaseUrl, schema));
      } finally {
        if (storage === 'postgres') {
          const client = new pg.Client({ connectionString: databaseUrl });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await client.end();
        }
      }
    }
  }
  const loadAfter = loadavg();
  console.log(`\nwebhook deliveries: ${count} per run to a loopback receiver; load average ${loadBefore[0]!.toFixed(1)} before, ${loadAfter[0]!.toFixed(1)} after`);
  printTable(
    ['storage', 'queue concurrency', 'deliveries/s', 'gateway CPU µs/delivery', 'duplicates'],
    results.map((r) => [r.storage, r.concurrency, Math.round(r.perSecond), Math.round(r.cpuUsPerDelivery), r.duplicates]),
  );
  return results;
}
