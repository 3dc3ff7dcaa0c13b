import { createGateway } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { serveGateway } from '@berth/plugin-transport-fastify';

/**
 * Benchmark target: the gateway as `npm start` assembles it for images — memory storage, API-key auth and
 * the gpux runtime on its simulated pool, which serves the reference image engine in process.
 */
const apiKey = 'bench-images-key-0000000000000000';
const gateway = createGateway({
  plugins: [memoryStorage(), apiKeyAuth(), gpuxRuntime()],
  config: { bootstrapAccountId: 'bench', bootstrapApiKey: apiKey },
});
await gateway.start();
const server = await serveGateway(gateway, { host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url: server.url, apiKey }));
process.on('SIGTERM', () => void server.close().then(() => gateway.stop()).then(() => process.exit(0)));
