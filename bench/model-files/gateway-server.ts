import { createGateway, FilesystemBlobStore } from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { serveGateway } from '@berth/plugin-transport-fastify';

/**
 * The gateway of bench/model-files, in its own process so its RSS is its own: the embedded default of
 * `npm start` (memory storage for records, the filesystem blob store under BENCH_BLOB_DIR for files),
 * API keys. Prints `{"url", "apiKey", "pid"}`.
 */
const directory = process.env.BENCH_BLOB_DIR;
if (!directory) throw new Error('BENCH_BLOB_DIR is required');
const apiKey = 'bench-model-files-key-0000000000000';
const gateway = createGateway({
  plugins: [memoryStorage({ blobs: new FilesystemBlobStore({ directory }) }), apiKeyAuth()],
  config: { bootstrapAccountId: 'bench', bootstrapApiKey: apiKey },
});
await gateway.start();
const server = await serveGateway(gateway, { host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url: server.url, apiKey, pid: process.pid }));
process.on('SIGTERM', () => void server.close().then(() => gateway.stop()).then(() => process.exit(0)));
