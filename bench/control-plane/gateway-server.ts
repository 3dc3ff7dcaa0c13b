import { createGateway, coreServicesToken, systemContext } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { serveGateway } from '@berth/plugin-transport-fastify';
import { observabilityPlugins } from '../observability/observe.js';

/**
 * Benchmark target: the full gateway (memory storage, API-key auth on). `bench-model` has no deployments;
 * `busy-model` and `other-model` have 100 deployments each (so `busy-model` carries 100 deployedModelRefs).
 */
const apiKey = 'bench-admin-key-000000000000';
const gateway = createGateway({
  plugins: [memoryStorage(), apiKeyAuth(), ...observabilityPlugins()],
  config: { bootstrapAccountId: 'bench', bootstrapApiKey: apiKey },
});
await gateway.start();
const services = gateway.resolve(coreServicesToken);
const ctx = systemContext('bench');
await services.models.create(ctx, 'bench', {
  kind: 'HUB_BASE_MODEL', displayName: 'Bench model',
  baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] },
}, 'bench-model');
await services.models.create(ctx, 'bench', {
  kind: 'HUB_BASE_MODEL', displayName: 'Busy model',
  baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] },
}, 'busy-model');
await services.models.create(ctx, 'bench', {
  kind: 'HUB_BASE_MODEL', displayName: 'Other model',
  baseModelDetails: { parameterCount: '70000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] },
}, 'other-model');
for (let i = 0; i < 200; i += 1) {
  await services.deployments.create(ctx, 'bench', {
    baseModel: `accounts/bench/models/${i % 2 === 0 ? 'busy-model' : 'other-model'}`,
    acceleratorType: i % 3 === 0 ? 'GPUX_H100_80GB' : 'GPUX_A100_80GB',
    displayName: `deployment ${i}`,
  }, { deploymentId: `d-${i}` });
}
const server = await serveGateway(gateway, { host: '127.0.0.1', port: 0 });
const model = await services.models.get(ctx, 'accounts/bench/models/bench-model');
const busyModel = await services.models.get(ctx, 'accounts/bench/models/busy-model');
const filter = 'base_model = "accounts/bench/models/busy-model" AND accelerator_type = GPUX_H100_80GB';
const list = await services.deployments.list(ctx, 'bench', { filter, pageSize: 50 });
console.log(JSON.stringify({ url: server.url, apiKey, filter, model, busyModel, list: { deployments: list.items, totalSize: list.totalSize } }));
process.on('SIGTERM', () => void server.close().then(() => gateway.stop()).then(() => process.exit(0)));
