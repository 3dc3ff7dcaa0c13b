import { coreServicesToken, createGateway, servingOptions, systemContext } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { serveGateway } from '@berth/plugin-transport-fastify';

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
const model = 'accounts/bench/models/bench-model';
const gateway = createGateway({
  plugins: [
    storage,
    apiKeyAuth(),
    gpuxRuntime({ provisioner: { kind: 'static', servers: { [model]: engineUrl }, pollIntervalMs: 50 } }),
    servingOptions({ pollIntervalMs: 200 }),
  ],
  config: { bootstrapAccountId: 'bench', bootstrapApiKey: apiKey },
});
await gateway.start();
const services = gateway.resolve(coreServicesToken);
const ctx = systemContext('bench');
await services.models.create(ctx, 'bench', {
  kind: 'HUB_BASE_MODEL', displayName: 'Bench model', contextLength: 8192,
  baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] },
}, 'bench-model');
// One replica (the static server backs exactly one), so autoscaling never asks for a second.
await services.deployments.create(ctx, 'bench', { baseModel: model, acceleratorType: 'GPUX_H100_80GB', minReplicaCount: 1, maxReplicaCount: 1 }, { deploymentId: 'bench-deployment' });
const until = Date.now() + 30_000;
for (;;) {
  const deployment = await services.deployments.get(ctx, 'accounts/bench/deployments/bench-deployment');
  if (deployment.state === 'READY') break;
  if (Date.now() > until) throw new Error(`deployment stayed ${String(deployment.state)}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const server = await serveGateway(gateway, { host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url: server.url, apiKey, model, storage: storageKind, directory: "core's serving layer: gpux runtime, static provisioner → engine child, reconciler, RuntimeServingDirectory" }));
process.on('SIGTERM', () => void server.close().then(() => gateway.stop()).then(() => process.exit(0)));
