import { afterEach, describe, expect, it } from 'vitest';
import { Code } from '../errors/code.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { GatewayConfig } from '../kernel/config.js';
import { definePlugin } from '../kernel/plugin.js';
import { imageEnginesToken, storageToken } from '../kernel/tokens.js';
import type { ImageEngine, ImageGenerationRequest } from '../ports/image-engine.js';
import { referenceImageEngine } from '../engine/reference-image-engine.js';
import { queueWorkers } from '../services/queue-workers-plugin.js';
import { imageServiceToken } from '../services/tokens.js';
import { createTestGateway, memoryStorage, principalContext, type TestGateway } from '../testing/index.js';
import type { ImageResult, ImageService } from './image-service.js';

/** An engine that fails with `failures` first, then draws with the reference engine; records its calls. */
function scriptedEngine(failures: GatewayError[]): ImageEngine & { calls: ImageGenerationRequest[] } {
  const reference = referenceImageEngine();
  const calls: ImageGenerationRequest[] = [];
  return {
    name: 'scripted',
    calls,
    async generate(ctx, request) {
      calls.push(request);
      const failure = failures.shift();
      if (failure) throw failure;
      return reference.generate(ctx, request);
    },
  };
}

describe('ImageService', () => {
  let test: TestGateway | undefined;
  afterEach(async () => {
    await test?.stop();
    test = undefined;
  });

  async function start(engine: ImageEngine | undefined, pollIntervalMs = 10, config: Partial<GatewayConfig> = {}): Promise<ImageService> {
    const engines = definePlugin({
      id: 'engines',
      register(binder) {
        if (engine) binder.contribute(imageEnginesToken, engine);
      },
    });
    test = await createTestGateway({ plugins: [memoryStorage(), queueWorkers({ pollIntervalMs }), engines], config });
    return test.gateway.resolve(imageServiceToken);
  }

  async function settle(images: ImageService, id: string, ctx = principalContext('acme')): Promise<ImageResult> {
    for (let i = 0; i < 500; i += 1) {
      const result = await images.getResult(ctx, 'imgmodel-kontext-pro', { id });
      if (result.status !== 'Pending') return result;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('still Pending');
  }

  it('retries an unavailable engine on the queue and then reaches Ready', async () => {
    const engine = scriptedEngine([new GatewayError(Code.UNAVAILABLE, 'warming up')]);
    const images = await start(engine);
    const ctx = principalContext('acme');
    const { request_id } = await images.submit(ctx, 'imgmodel-kontext-pro', { prompt: 'a kite', seed: 9 }, 'http://gateway.test');
    const pending = await images.getResult(ctx, 'imgmodel-kontext-pro', { id: request_id });
    expect(pending).toMatchObject({ status: 'Pending', result: null });
    const done = await settle(images, request_id);
    expect(done.status).toBe('Ready');
    expect(done.result?.sample).toBe(`http://gateway.test/inference/v1/workflows/accounts/system/models/imgmodel-kontext-pro/results/${request_id}`);
    expect(engine.calls).toHaveLength(2);
    expect(engine.calls[0]).toMatchObject({ role: 'kontext_pro', seed: 9, steps: 28, format: 'png', width: 1024, height: 1024 });
    const sample = await images.sample(ctx, 'imgmodel-kontext-pro', request_id);
    expect(sample.contentType).toBe('image/png');
  });

  it('ends in Error at once for a failure that retrying cannot fix, and after the last attempt otherwise', async () => {
    const refused = scriptedEngine([new GatewayError(Code.INVALID_ARGUMENT, 'the model cannot draw that')]);
    const images = await start(refused);
    const ctx = principalContext('acme');
    const first = await images.submit(ctx, 'imgmodel-kontext-max', { prompt: 'p' }, 'http://g');
    expect(await settle(images, first.request_id)).toMatchObject({ status: 'Error', result: null, details: { error: 'the model cannot draw that' } });
    expect(refused.calls).toHaveLength(1);
  });

  it('ends in Error when no engine is installed, after the queue gave up', async () => {
    const images = await start(undefined);
    const ctx = principalContext('acme');
    const { request_id } = await images.submit(ctx, 'imgmodel-kontext-pro', { prompt: 'p' }, 'http://g');
    const done = await settle(images, request_id);
    expect(done).toMatchObject({ status: 'Error', details: { error: expect.stringMatching(/no image engine is installed/) } });
    await expect(images.textToImage(ctx, { prompt: 'p' }, undefined)).rejects.toMatchObject({ code: Code.UNAVAILABLE });
  });

  it('keeps requests per account and needs an authenticated caller', async () => {
    const images = await start(scriptedEngine([]));
    const { request_id } = await images.submit(principalContext('acme'), 'imgmodel-kontext-pro', { prompt: 'p' }, 'http://g');
    expect(await images.getResult(principalContext('other'), 'imgmodel-kontext-pro', { id: request_id }))
      .toEqual({ id: request_id, status: 'Task not found', result: null, progress: null, details: null });
    expect((await images.getResult(principalContext('acme'), 'imgmodel-kontext-pro', { id: '../x/y' })).status).toBe('Task not found');
    await expect(images.getResult(principalContext('acme'), 'imgmodel-kontext-pro', {})).rejects.toThrow(/id is required/);
    await expect(images.submit({ requestId: 'r' }, 'imgmodel-kontext-pro', { prompt: 'p' }, 'http://g')).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
    await expect(images.sample(principalContext('other'), 'imgmodel-kontext-pro', request_id)).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('refuses input image URLs the egress policy refuses (loopback is off by default)', async () => {
    const images = await start(scriptedEngine([]));
    for (const url of ['http://127.0.0.1:9/a.png', 'http://[::1]/a.png', 'http://169.254.169.254/latest/meta-data', 'http://localhost/a.png']) {
      await expect(images.submit(principalContext('acme'), 'imgmodel-kontext-pro', { prompt: 'p', input_image: url }, 'http://g'))
        .rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: expect.stringMatching(/input_image URL could not be fetched/) });
    }
  });

  it('wakes this process\'s queue workers: a request starts at once, not at their next poll', async () => {
    const images = await start(scriptedEngine([]), 600_000);
    // Let the idle workers finish their first poll and go to sleep for ten minutes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { request_id } = await images.submit(principalContext('acme'), 'imgmodel-kontext-pro', { prompt: 'p' }, 'http://g');
    expect((await settle(images, request_id)).status).toBe('Ready');
  });

  it('removes a finished request and its image once the retention has passed', async () => {
    const images = await start(scriptedEngine([]), 10, { imageRetentionMs: 300 });
    const ctx = principalContext('acme');
    const { request_id } = await images.submit(ctx, 'imgmodel-kontext-pro', { prompt: 'p' }, 'http://g');
    expect((await settle(images, request_id)).status).toBe('Ready');
    const blobs = test!.gateway.resolve(storageToken).blobs;
    expect(await blobs.list(ctx, 'images/acme/')).toEqual([`images/acme/${request_id}`]);
    let status = 'Ready';
    for (let i = 0; i < 300 && status !== 'Task not found'; i += 1) {
      status = (await images.getResult(ctx, 'imgmodel-kontext-pro', { id: request_id })).status;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe('Task not found');
    expect(await blobs.list(ctx, 'images/acme/')).toEqual([]);
    await expect(images.sample(ctx, 'imgmodel-kontext-pro', request_id)).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('refuses a webhook_url when no webhook delivery is installed, instead of dropping it', async () => {
    const images = await start(scriptedEngine([]));
    await expect(images.submit(principalContext('acme'), 'imgmodel-kontext-pro', { prompt: 'p', webhook_url: 'https://example.com/hook' }, 'http://g'))
      .rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: expect.stringMatching(/webhook_url needs webhook delivery/) });
  });
});
