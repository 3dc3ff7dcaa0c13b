import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyManagerToken, coreServicesToken, queueWorkers, systemContext } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { webhooks } from '@berth/plugin-webhooks';
import { adminKey, startHarness, type Harness } from './harness.js';

const models = '/inference/v1/workflows/accounts/system/models';
const textToImage = `${models}/imgmodel-1-schnell-fp8/text_to_image`;

interface ImageResult {
  id: string;
  status: string;
  result: { sample: string; seed: number; prompt: string } | null;
  progress: number | null;
  details: Record<string, unknown> | null;
}

describe('image generation over HTTP', () => {
  let h: Harness;
  let imageServer: Server;
  let imageServerUrl: string;
  /** Webhooks the loopback receiver got (path `/hook/...`), with their raw bodies. */
  const hooks: { path: string; headers: Record<string, string>; body: string }[] = [];

  beforeAll(async () => {
    h = await startHarness({
      plugins: [
        memoryStorage(), queueWorkers({ pollIntervalMs: 20 }), apiKeyAuth({ cacheTtlMs: 0 }), gpuxRuntime(),
        webhooks({ attemptTimeoutMs: 5_000, backoff: { initialMs: 50, jitter: 0 } }),
      ],
      config: { imageBlockedTerms: ['forbidden'], imageSensitiveTerms: ['storm'], allowLoopbackUrls: true },
    });
    const png = await sharp({ create: { width: 320, height: 160, channels: 3, background: '#3366cc' } }).png().toBuffer();
    imageServer = createServer((req, res) => {
      if (req.url?.startsWith('/hook/')) {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          hooks.push({ path: req.url!, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
          res.writeHead(204).end();
        });
        return;
      }
      if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    });
    await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
    imageServerUrl = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await h.close();
    await new Promise<void>((resolve) => imageServer.close(() => resolve()));
  });

  /** POST with the raw answer (text_to_image answers bytes). */
  async function post(path: string, body: unknown, headers: Record<string, string> = {}, key = adminKey) {
    return fetch(`${h.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  }

  async function pollUntilDone(model: string, id: string, key = adminKey): Promise<ImageResult> {
    for (let i = 0; i < 400; i += 1) {
      const answer = await h.call<ImageResult>('POST', `${models}/${model}/get_result`, { body: { id }, key });
      expect(answer.status).toBe(200);
      if (answer.body.status !== 'Pending') return answer.body;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`request ${id} stayed Pending`);
  }

  describe('text_to_image', () => {
    it('answers JPEG bytes without Accept, with Content-Length, Seed and Finish-Reason', async () => {
      const response = await post(textToImage, { prompt: 'a lighthouse at dusk', aspect_ratio: '16:9', seed: 42, samples: 1, width: 9 });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/jpeg');
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(Number(response.headers.get('content-length'))).toBe(bytes.byteLength);
      expect(response.headers.get('seed')).toBe('42');
      expect(response.headers.get('finish-reason')).toBe('SUCCESS');
      expect(await sharp(bytes).metadata()).toMatchObject({ format: 'jpeg', width: 1376, height: 768 });
    });

    it('answers PNG bytes for Accept image/png and the same picture for the same seed', async () => {
      const first = await post(textToImage, { prompt: 'a red kite', seed: 7 }, { accept: 'image/png' });
      const second = await post(textToImage, { prompt: 'a red kite', seed: 7 }, { accept: 'image/png' });
      expect(first.headers.get('content-type')).toBe('image/png');
      const a = Buffer.from(await first.arrayBuffer());
      expect(await sharp(a).metadata()).toMatchObject({ format: 'png', width: 1024, height: 1024 });
      expect(Buffer.from(await second.arrayBuffer()).equals(a)).toBe(true);
    });

    it('answers JSON with data URIs of a PNG and the random seed used for seed 0', async () => {
      const response = await post(textToImage, { prompt: 'a quiet harbour', aspect_ratio: '9:16', seed: 0 }, { accept: 'application/json' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { id: string; base64: string[]; finishReason: string; seed: number };
      expect(body.finishReason).toBe('SUCCESS');
      expect(body.seed).toBeGreaterThan(0);
      expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.base64).toHaveLength(1);
      expect(body.base64[0]).toMatch(/^data:image\/png;base64,/);
      const decoded = Buffer.from(body.base64[0]!.split(',')[1]!, 'base64');
      expect(await sharp(decoded).metadata()).toMatchObject({ format: 'png', width: 768, height: 1376 });
    });

    it('filters a blocked prompt: CONTENT_FILTERED with a black image', async () => {
      const response = await post(textToImage, { prompt: 'something forbidden' }, { accept: 'image/png' });
      expect(response.status).toBe(200);
      expect(response.headers.get('finish-reason')).toBe('CONTENT_FILTERED');
      const stats = await sharp(Buffer.from(await response.arrayBuffer())).stats();
      expect(stats.channels.every((channel) => channel.max === 0)).toBe(true);
    });

    it('refuses bad input with 400 {error_message}', async () => {
      for (const [body, message] of [
        [{}, /prompt is required/],
        [{ prompt: 'p', aspect_ratio: '7:5' }, /aspect_ratio "7:5" must be one of/],
        [{ prompt: 'p', num_inference_steps: 0 }, /num_inference_steps/],
        [{ prompt: 'p', guidance_scale: 'x' }, /guidance_scale must be a number/],
      ] as const) {
        const response = await post(textToImage, body);
        expect(response.status).toBe(400);
        const answer = (await response.json()) as { error_message: string };
        expect(answer.error_message).toMatch(message);
      }
      const wrongAccept = await post(textToImage, { prompt: 'p' }, { accept: 'text/html' });
      expect(wrongAccept.status).toBe(400);
      expect(await post(textToImage, { prompt: 'p' }, {}, 'not-a-key').then((r) => r.status)).toBe(401);
    });
  });

  describe('asynchronous requests', () => {
    it('reaches Ready through get_result; the sample URL serves the image to the same credential', async () => {
      const submitted = await h.call<{ request_id: string }>('POST', `${models}/imgmodel-kontext-pro`, {
        body: { prompt: 'a paper boat', aspect_ratio: '21:9', output_format: 'jpeg', seed: 5, unknown_key: 1 },
      });
      expect(submitted.status).toBe(200);
      expect(Object.keys(submitted.body)).toEqual(['request_id']);
      const done = await pollUntilDone('imgmodel-kontext-pro', submitted.body.request_id);
      expect(done).toMatchObject({ id: submitted.body.request_id, status: 'Ready', progress: 1, details: null });
      expect(done.result).toMatchObject({ prompt: 'a paper boat', seed: 5 });
      const sample = new URL(done.result!.sample);
      expect(sample.origin).toBe(new URL(h.url).origin);
      const download = await fetch(sample, { headers: { authorization: `Bearer ${adminKey}` } });
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('image/jpeg');
      expect(await sharp(Buffer.from(await download.arrayBuffer())).metadata()).toMatchObject({ format: 'jpeg', width: 1568, height: 672 });
      expect((await fetch(sample)).status).toBe(401);
    });

    it('edits an input image given as a URL (fetched through the guarded client) or base64', async () => {
      const byUrl = await h.call<{ request_id: string }>('POST', `${models}/imgmodel-kontext-max`, {
        body: { prompt: 'make it night', input_image: `${imageServerUrl}/photo.png` },
      });
      expect(byUrl.status).toBe(200);
      const done = await pollUntilDone('imgmodel-kontext-max', byUrl.body.request_id);
      expect(done.status).toBe('Ready');
      const image = await fetch(done.result!.sample, { headers: { authorization: `Bearer ${adminKey}` } });
      // No aspect_ratio: the input's shape (2:1), PNG by default.
      expect(await sharp(Buffer.from(await image.arrayBuffer())).metadata()).toMatchObject({ format: 'png', width: 1440, height: 736 });

      const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } }).png().toBuffer();
      const byBytes = await h.call<{ request_id: string }>('POST', `${models}/imgmodel-kontext-pro`, {
        body: { prompt: 'add a moon', input_image: png.toString('base64'), aspect_ratio: '1:1' },
      });
      expect((await pollUntilDone('imgmodel-kontext-pro', byBytes.body.request_id)).status).toBe('Ready');
    });

    it('ends blocked prompts as Request Moderated and strict outputs as Content Moderated', async () => {
      const moderated = await h.call<{ request_id: string }>('POST', `${models}/imgmodel-kontext-pro`, { body: { prompt: 'a forbidden thing' } });
      const done = await pollUntilDone('imgmodel-kontext-pro', moderated.body.request_id);
      expect(done).toMatchObject({ status: 'Request Moderated', result: null });
      expect(done.details).toEqual({ moderation_reasons: ['blocked term: forbidden'] });

      const strict = await h.call<{ request_id: string }>('POST', `${models}/imgmodel-kontext-pro`, { body: { prompt: 'a storm', safety_tolerance: 0 } });
      expect(await pollUntilDone('imgmodel-kontext-pro', strict.body.request_id)).toMatchObject({
        status: 'Content Moderated', result: null, details: { moderation_reasons: ['sensitive term: storm'] },
      });
      const lax = await h.call<{ request_id: string }>('POST', `${models}/imgmodel-kontext-pro`, { body: { prompt: 'a storm', safety_tolerance: 2 } });
      expect((await pollUntilDone('imgmodel-kontext-pro', lax.body.request_id)).status).toBe('Ready');
    });

    it('sends a signed webhook when a request with webhook_url ends, verifiable with standardwebhooks', async () => {
      const whsec = `whsec_${Buffer.from('a webhook key of thirty-two byte').toString('base64')}`;
      const submitted = await h.call<{ request_id: string }>('POST', `${models}/imgmodel-kontext-max`, {
        body: { prompt: 'a signal flare', webhook_url: `${imageServerUrl}/hook/ready`, webhook_secret: whsec },
      });
      expect(submitted.status).toBe(200);
      const done = await pollUntilDone('imgmodel-kontext-max', submitted.body.request_id);
      expect(done.status).toBe('Ready');
      const moderated = await h.call<{ request_id: string }>('POST', `${models}/imgmodel-kontext-pro`, {
        body: { prompt: 'forbidden flare', webhook_url: `${imageServerUrl}/hook/moderated`, webhook_secret: 'a plain passphrase' },
      });
      expect((await pollUntilDone('imgmodel-kontext-pro', moderated.body.request_id)).status).toBe('Request Moderated');
      for (let i = 0; i < 400 && hooks.length < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));

      const ready = hooks.find((hook) => hook.path === '/hook/ready')!;
      const verified = new Webhook(whsec).verify(ready.body, ready.headers) as { type: string; data: Record<string, unknown> };
      expect(verified.type).toBe('image.ready');
      expect(verified.data).toEqual(done);
      const refused = hooks.find((hook) => hook.path === '/hook/moderated')!;
      const plain = new Webhook(new TextEncoder().encode('a plain passphrase'), { format: 'raw' });
      expect(plain.verify(refused.body, refused.headers)).toMatchObject({
        type: 'image.moderated', data: { id: moderated.body.request_id, status: 'Request Moderated', result: null },
      });
      expect(() => new Webhook(whsec).verify(refused.body, refused.headers)).toThrow();
      expect(hooks).toHaveLength(2);
    });

    it('refuses bad input with 400 {error_message}', async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ prompt: 'p', webhook_url: 'http://169.254.169.254/latest' }, /webhook_url is refused/],
        [{ prompt: 'p', webhook_url: 'https://user:pw@example.com/hook' }, /webhook_url is refused/],
        [{ prompt: 'p', webhook_url: 'https://example.com/hook', webhook_secret: 'whsec_not base64!' }, /webhook_secret starts with "whsec_"/],
        [{}, /prompt is required/],
        [{ prompt: 'p', safety_tolerance: 7 }, /safety_tolerance must be from 0 to 6/],
        [{ prompt: 'p', safety_tolerance: 3, input_image: `${imageServerUrl}/photo.png` }, /at most 2 with an input_image/],
        [{ prompt: 'p', aspect_ratio: '22:9' }, /between 21:9 and 9:21/],
        [{ prompt: 'p', output_format: 'gif' }, /output_format must be one of jpeg, png/],
        [{ prompt: 'p', webhook_url: '' }, /webhook_url must be 1 to 2083 characters/],
        [{ prompt: 'p', webhook_url: `https://example.com/${'x'.repeat(2100)}` }, /1 to 2083/],
        [{ prompt: 'p', input_image: `${imageServerUrl}/page.html` }, /not an image/],
        [{ prompt: 'p', input_image: 'bm90IGFuIGltYWdl' }, /not a readable image/],
      ];
      for (const [body, message] of cases) {
        const answer = await h.call<{ error_message: string }>('POST', `${models}/imgmodel-kontext-pro`, { body });
        expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(answer.body.error_message).toMatch(message);
      }
      const unknownModel = await h.call<{ error_message: string }>('POST', `${models}/imgmodel-1-schnell-fp8`, { body: { prompt: 'p' } });
      expect(unknownModel.status).toBe(400);
      expect(unknownModel.body.error_message).toMatch(/must be one of imgmodel-kontext-pro, imgmodel-kontext-max/);
    });

    it("answers Task not found for an unknown id and for another account's request", async () => {
      const unknown = await h.call<ImageResult>('POST', `${models}/imgmodel-kontext-pro/get_result`, { body: { id: 'no-such-request' } });
      expect(unknown.body).toEqual({ id: 'no-such-request', status: 'Task not found', result: null, progress: null, details: null });

      const submitted = await h.call<{ request_id: string }>('POST', `${models}/imgmodel-kontext-pro`, { body: { prompt: 'a lantern' } });
      const done = await pollUntilDone('imgmodel-kontext-pro', submitted.body.request_id);
      const ctx = systemContext('test');
      await h.gateway.resolve(coreServicesToken).users.create(ctx, 'other', { role: 'admin' }, 'root');
      const otherKey = (await h.gateway.resolve(apiKeyManagerToken).create(ctx, 'accounts/other/users/root', {})).key;
      const theirs = await pollUntilDone('imgmodel-kontext-pro', submitted.body.request_id, otherKey).catch(() => undefined);
      expect(theirs).toEqual({ id: submitted.body.request_id, status: 'Task not found', result: null, progress: null, details: null });
      const download = await fetch(done.result!.sample, { headers: { authorization: `Bearer ${otherKey}` } });
      expect(download.status).toBe(400);
      expect(((await download.json()) as { error_message: string }).error_message).toMatch(/not found/);
      expect(done.status).toBe('Ready');
    });
  });
});
