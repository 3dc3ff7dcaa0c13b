import { BatchInferenceRunner, batchInferenceRunnerToken, createGateway, definePlugin, queueWorkers } from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import { serveGateway } from '@berth/plugin-transport-fastify';
import { benchModel, deployBenchModel, engineRuntime } from '../lib/engine-deployment.js';

/**
 * The gateway of bench/batch, in its own process so its RSS is its own: PostgreSQL storage (DATABASE_URL,
 * schema BENCH_SCHEMA; dataset files and batch outputs live in the database, not in the gateway's
 * memory), API keys, queue workers, the gpux runtime with one deployment whose single replica is the
 * engine child (the `static` provisioner), so batch rows take the same serving path as chat completions.
 * The batch runner sends BENCH_CONCURRENCY rows at once. Prints `{"url", "apiKey", "model", "pid"}`.
 */
const [engineUrl] = process.argv.slice(2);
if (!engineUrl) throw new Error('usage: gateway-server.ts <engine url>');
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const apiKey = 'bench-batch-key-00000000000000000';

const batchConcurrency = definePlugin({
  id: 'bench-batch-concurrency',
  register(binder) {
    binder.bindValue(batchInferenceRunnerToken, new BatchInferenceRunner({ concurrency }), { override: true });
  },
});

const gateway = createGateway({
  plugins: [
    postgresStorage({ connectionString: process.env.DATABASE_URL, schema: process.env.BENCH_SCHEMA ?? 'berth_bench_batch' }),
    apiKeyAuth(),
    ...engineRuntime(engineUrl),
    batchConcurrency,
    queueWorkers({ pollIntervalMs: 50 }),
  ],
  config: { bootstrapAccountId: 'bench', bootstrapApiKey: apiKey },
});
await gateway.start();
await deployBenchModel(gateway);
const server = await serveGateway(gateway, { host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url: server.url, apiKey, model: benchModel, pid: process.pid }));
process.on('SIGTERM', () => void server.close().then(() => gateway.stop()).then(() => process.exit(0)));
