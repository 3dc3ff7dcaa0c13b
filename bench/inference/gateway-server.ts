import { createGateway } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { serveGateway } from '@berth/plugin-transport-fastify';
import { observabilityPlugins } from '../observability/observe.js';
import { benchModel, deployBenchModel, engineRuntime } from '../lib/engine-deployment.js';

/**
 * Benchmark target (c): the full gateway — memory storage, API-key auth, the gpux runtime, core's
 * deployment reconciler and serving directory — with one deployment whose single replica is the engine
 * child, reached through the `static` provisioner (an existing OpenAI-compatible server by URL). The
 * engine runs in its own process, so its CPU is not counted in the gateway's. With a second argument
 * `postgres` the gateway stores on PostgreSQL (DATABASE_URL, schema BENCH_SCHEMA) instead of memory.
 */
const [engineUrl, storageKind = 'memory'] = process.argv.slice(2);
if (!engineUrl || (storageKind !== 'memory' && storageKind !== 'postgres')) throw new Error('usage: gateway-server.ts <engine url> [memory|postgres]');
const storage = storageKind === 'postgres'
  ? postgresStorage({ connectionString: process.env.DATABASE_URL, schema: process.env.BENCH_SCHEMA ?? 'berth_bench' })
  : memoryStorage();
const apiKey = 'bench-inference-key-000000000000';
const model = benchModel;
const gateway = createGateway({
  plugins: [storage, apiKeyAuth(), ...engineRuntime(engineUrl), ...observabilityPlugins()],
  config: { bootstrapAccountId: 'bench', bootstrapApiKey: apiKey },
});
await gateway.start();
await deployBenchModel(gateway);
const server = await serveGateway(gateway, { host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url: server.url, apiKey, model, storage: storageKind, directory: "core's serving layer: gpux runtime, static provisioner → engine child, reconciler, RuntimeServingDirectory" }));
process.on('SIGTERM', () => void server.close().then(() => gateway.stop()).then(() => process.exit(0)));
