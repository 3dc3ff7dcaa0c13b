import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FilesystemBlobStore, systemContext } from '@berth/core';

/**
 * The bare HTTP baseline of bench/model-files, in its own process like the gateway: a minimal `node:http`
 * server doing the same store work and nothing else — no routing framework, no signature, no size or
 * format check, no records. `PUT /<key>` streams the request body into `FilesystemBlobStore.putStream`
 * (which hashes, writes and fdatasyncs, as it does for the gateway) and answers 200; `GET /<key>` pipes
 * `getStream`'s body to the response with its `Content-Length`. What the gateway costs beyond this is
 * what the gateway adds; what this costs beyond the direct store calls is HTTP on loopback.
 * Prints `{"url", "pid"}`.
 */
const directory = process.env.BENCH_BLOB_DIR;
if (!directory) throw new Error('BENCH_BLOB_DIR is required');
const store = new FilesystemBlobStore({ directory });
const ctx = systemContext('bench-model-files-bare');

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const key = `bare/${decodeURIComponent((request.url ?? '/').slice(1))}`;
  if (request.method === 'PUT') {
    const size = await store.putStream(ctx, key, request, request.headers['content-type'] ?? 'application/octet-stream');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ size }));
    return;
  }
  if (request.method === 'DELETE') {
    await store.delete(ctx, key);
    response.writeHead(204).end();
    return;
  }
  const stream = await store.getStream(ctx, key);
  if (!stream) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': stream.contentType, 'content-length': String(stream.length) });
  await pipeline(Readable.from(stream.body, { objectMode: false }), response);
}

const server = createServer((request, response) => {
  handle(request, response).catch((error: unknown) => {
    if (!response.headersSent) response.writeHead(500).end(String(error));
    else response.destroy();
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  console.log(JSON.stringify({ url: `http://127.0.0.1:${address.port}`, pid: process.pid }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
