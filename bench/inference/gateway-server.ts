import { createGateway, definePlugin, notFound, servingDirectoryToken, type ModelTarget, type ReplicaLease, type ServingDirectory } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { serveGateway } from '@berth/plugin-transport-fastify';

/**
 * Benchmark target (c): the full gateway (memory storage, API-key auth) serving inference through a
 * ServingDirectory. It binds a minimal directory (one model, one deployment, one replica = the engine
 * child, a counter per lease released once) instead of core's serving layer: that layer's simulated
 * provisioner starts its reference engines inside the gateway's own process, which would put the
 * engine's CPU into the gateway's numbers; and it was still being written when this benchmark was.
 */
const engineUrl = process.argv[2];
if (!engineUrl) throw new Error('usage: gateway-server.ts <engine url>');
const apiKey = 'bench-inference-key-000000000000';
const model = 'accounts/bench/models/bench-model';
const target: ModelTarget = { accountId: 'bench', model, deployment: 'accounts/bench/deployments/bench-deployment' };
let outstanding = 0;
const directory: ServingDirectory = {
  async resolve(_ctx, name) {
    const base = name.split('#')[0];
    if (base !== model) throw notFound(name);
    return target;
  },
  async acquire(_ctx, resolved): Promise<ReplicaLease> {
    outstanding += 1;
    let released = false;
    return {
      replicaId: 'replica-0',
      deployment: resolved.deployment,
      endpoint: engineUrl,
      servedModelId: 'reference-model',
      release() {
        if (released) return;
        released = true;
        outstanding -= 1;
      },
    };
  },
};
const gateway = createGateway({
  plugins: [
    memoryStorage(),
    apiKeyAuth(),
    definePlugin({ id: 'bench-serving', register: (binder) => binder.bindValue(servingDirectoryToken, directory, { override: true }) }),
  ],
  config: { bootstrapAccountId: 'bench', bootstrapApiKey: apiKey },
});
await gateway.start();
const server = await serveGateway(gateway, { host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url: server.url, apiKey, model, directory: 'minimal directory bound to the engine child (not core RuntimeServingDirectory)' }));
process.on('SIGTERM', () => {
  // Close first: it waits for requests in flight, so only leases that were never released remain.
  void server
    .close()
    .then(() => {
      if (outstanding !== 0) console.error(`gateway bench: ${outstanding} leases never released (a leak)`);
      return gateway.stop();
    })
    .then(() => process.exit(0));
});
