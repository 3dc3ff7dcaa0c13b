import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { flowingChunks } from './streamed-body.js';

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

describe('flowingChunks', () => {
  it('yields every chunk in order and ends with the stream', async () => {
    const stream = Readable.from([Buffer.from('ab'), Buffer.from('cd'), Buffer.from('e')], { objectMode: false });
    expect((await collect(flowingChunks(stream))).toString()).toBe('abcde');
  });

  it('reads nothing before the first next()', async () => {
    const stream = new PassThrough();
    stream.write('x');
    const iterator = flowingChunks(stream)[Symbol.asyncIterator]();
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.readableFlowing).toBe(null);
    expect(stream.readableLength).toBe(1);
    const first = await iterator.next();
    expect(Buffer.from(first.value!).toString()).toBe('x');
  });

  it('pauses the stream while more than aheadBytes wait unread, and resumes it as they are taken', async () => {
    const stream = new PassThrough();
    const iterator = flowingChunks(stream, 10)[Symbol.asyncIterator]();
    const first = iterator.next();
    stream.write(Buffer.alloc(4, 1));
    expect((await first).value!.byteLength).toBe(4);
    for (let i = 0; i < 3; i += 1) stream.write(Buffer.alloc(4, 2));
    await new Promise((resolve) => setImmediate(resolve));
    // 12 bytes wait: over the 10 allowed, so the stream stopped flowing.
    expect(stream.isPaused()).toBe(true);
    await iterator.next();
    // 8 bytes wait now: reading goes on.
    expect(stream.isPaused()).toBe(false);
    stream.end();
    expect((await iterator.next()).done).toBe(false);
    expect((await iterator.next()).done).toBe(false);
    expect((await iterator.next()).done).toBe(true);
  });

  it("fails with the stream's error, also when it comes while a next() waits", async () => {
    const stream = new PassThrough();
    const iterator = flowingChunks(stream)[Symbol.asyncIterator]();
    const waiting = iterator.next();
    stream.destroy(new Error('socket reset'));
    await expect(waiting).rejects.toThrow('socket reset');
  });

  it('fails when the stream closes before its end (a client that went away)', async () => {
    const stream = new PassThrough();
    stream.write('partial');
    const consumed = collect(flowingChunks(stream));
    await new Promise((resolve) => setImmediate(resolve));
    stream.destroy();
    await expect(consumed).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('leaves the rest unread and the stream open when the consumer stops early', async () => {
    const stream = new PassThrough();
    stream.write('first');
    for await (const chunk of flowingChunks(stream)) {
      expect(Buffer.from(chunk).toString()).toBe('first');
      break;
    }
    stream.write('rest');
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.destroyed).toBe(false);
    expect(stream.isPaused()).toBe(true);
    expect(stream.read()?.toString()).toBe('rest');
  });

  it('reads an HTTP request body whole, and fails when the client aborts midway', async () => {
    const results: Array<Promise<number>> = [];
    const server = createServer((request: IncomingMessage, response) => {
      const read = (async () => {
        let bytes = 0;
        for await (const chunk of flowingChunks(request, 64 * 1024)) bytes += chunk.byteLength;
        return bytes;
      })();
      results.push(read);
      read.then(() => response.end('ok'), () => response.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const size = 3 * 1024 * 1024;
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest({ port, host: '127.0.0.1', method: 'PUT', headers: { 'content-length': String(size) } }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        req.on('error', reject);
        req.end(Buffer.alloc(size, 7));
      });
      await expect(results[0]).resolves.toBe(size);

      const aborted = httpRequest({ port, host: '127.0.0.1', method: 'PUT', headers: { 'content-length': String(size) } });
      aborted.on('error', () => undefined);
      aborted.write(Buffer.alloc(1024 * 1024, 1));
      await new Promise((resolve) => setTimeout(resolve, 50));
      aborted.destroy();
      await expect(results[1]).rejects.toThrow();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
