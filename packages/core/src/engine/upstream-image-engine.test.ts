import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemContext } from '../kernel/request-context.js';
import type { ImageGenerationRequest } from '../ports/image-engine.js';
import { upstreamImageEngine } from './upstream-image-engine.js';

const request: ImageGenerationRequest = {
  role: 'kontext_pro', model: 'imgmodel-kontext-pro', prompt: 'a boat', width: 1024, height: 1024, seed: 7, guidanceScale: 3.5, steps: 28, format: 'png',
};

describe('upstreamImageEngine', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /** An image server on loopback answering with `respond`; records what it received. */
  async function start(respond: (body: Record<string, unknown>) => { status: number; type: string; body: string | Buffer }) {
    const received: { path: string; auth: string | undefined; body: Record<string, unknown> }[] = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        received.push({ path: req.url ?? '', auth: req.headers.authorization, body });
        const answer = respond(body);
        res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, received };
  }

  it('posts the request and returns the image bytes', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const upstream = await start(() => ({ status: 200, type: 'image/png', body: png }));
    const engine = upstreamImageEngine({ url: `${upstream.url}/base`, apiKey: 'k' });
    const image = await engine.generate(systemContext('t'), request);
    expect(Buffer.from(image.bytes)).toEqual(png);
    expect(image).toMatchObject({ contentType: 'image/png', width: 1024, height: 1024 });
    expect(upstream.received[0]).toMatchObject({
      path: '/base/v1/images/generations', auth: 'Bearer k',
      body: { model: 'imgmodel-kontext-pro', prompt: 'a boat', seed: 7, num_inference_steps: 28, output_format: 'png', input_image: null },
    });
    await engine.close?.();
  });

  it('maps the server failures to gateway codes', async () => {
    let status = 422;
    const upstream = await start(() => ({ status, type: status === 200 ? 'text/html' : 'text/plain', body: 'no' }));
    const engine = upstreamImageEngine({ url: upstream.url });
    await expect(engine.generate(systemContext('t'), request)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: /refused the request: no/ });
    status = 500;
    await expect(engine.generate(systemContext('t'), request)).rejects.toMatchObject({ code: 'UNAVAILABLE', message: /HTTP 500/ });
    status = 200;
    await expect(engine.generate(systemContext('t'), request)).rejects.toMatchObject({ code: 'UNAVAILABLE', message: /expected image\/png/ });
    await engine.close?.();
  });

  it('is UNAVAILABLE when nothing listens', async () => {
    const upstream = await start(() => ({ status: 200, type: 'image/png', body: '' }));
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const engine = upstreamImageEngine({ url: upstream.url });
    await expect(engine.generate(systemContext('t'), request)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await engine.close?.();
  });

  it('refuses a URL that is not http or https', () => {
    expect(() => upstreamImageEngine({ url: 'ftp://images' })).toThrow(/must be http or https/);
  });
});
