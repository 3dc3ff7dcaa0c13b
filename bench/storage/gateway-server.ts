/**
 * Benchmark target: the gateway (API-key auth on) over HTTP, on PostgreSQL (`postgres`, schema
 * BENCH_SCHEMA of DATABASE_URL, already seeded) or on memory (`memory <rows>`, seeded here through
 * the storage port with the same bodies). Prints one JSON line `{"url": …}` once listening.
 */
import { createGateway, storageToken, systemContext, type GatewayPlugin } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { serveGateway } from '@berth/plugin-transport-fastify';
import { BENCH_ACCOUNT, BENCH_API_KEY, BENCH_PAGE_TOKEN_SECRET, deploymentBodies } from './deployment-bodies.js';

const kind = process.argv[2];
let storage: GatewayPlugin;
if (kind === 'postgres') {
  storage = postgresStorage({ connectionString: process.env.DATABASE_URL, schema: process.env.BENCH_SCHEMA ?? 'berth_bench' });
} else if (kind === 'memory') {
  storage = memoryStorage();
} else {
  throw new Error('usage: gateway-server.ts postgres|memory [rows]');
}
const gateway = createGateway({
  plugins: [storage, apiKeyAuth()],
  config: { bootstrapAccountId: BENCH_ACCOUNT, bootstrapApiKey: BENCH_API_KEY, pageTokenSecret: BENCH_PAGE_TOKEN_SECRET },
});
await gateway.start();
let seededMs = 0;
if (kind === 'memory') {
  const started = performance.now();
  const store = gateway.resolve(storageToken);
  const ctx = systemContext('bench-seed');
  for (const row of deploymentBodies(Number(process.argv[3] ?? 100_000))) await store.resources.create(ctx, row.name, row.data);
  seededMs = performance.now() - started;
}
const server = await serveGateway(gateway, { host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url: server.url, seededMs }));
process.on('SIGTERM', () => void server.close().then(() => gateway.stop()).then(() => process.exit(0)));
