import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { systemContext } from '../kernel/request-context.js';
import type { ImageGenerationRequest } from '../ports/image-engine.js';
import { referenceImageEngine } from './reference-image-engine.js';

const base: ImageGenerationRequest = {
  role: 'text_to_image',
  model: 'imgmodel-1-schnell-fp8',
  prompt: 'a lighthouse at dusk',
  width: 512,
  height: 288,
  seed: 42,
  guidanceScale: 3.5,
  steps: 4,
  format: 'png',
};

describe('referenceImageEngine', () => {
  const engine = referenceImageEngine();
  const ctx = systemContext('test');

  it('draws a PNG or JPEG of the requested size', async () => {
    const png = await engine.generate(ctx, base);
    expect(png.contentType).toBe('image/png');
    expect(await sharp(png.bytes).metadata()).toMatchObject({ format: 'png', width: 512, height: 288 });
    const jpeg = await engine.generate(ctx, { ...base, format: 'jpeg', width: 288, height: 512 });
    expect(jpeg.contentType).toBe('image/jpeg');
    expect(await sharp(jpeg.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 288, height: 512 });
  });

  it('is deterministic in prompt and seed, and differs when either changes', async () => {
    const pixels = async (request: ImageGenerationRequest) => (await sharp((await engine.generate(ctx, request)).bytes).raw().toBuffer()).toString('base64');
    const first = await pixels(base);
    expect(await pixels(base)).toBe(first);
    expect(await pixels({ ...base, seed: 43 })).not.toBe(first);
    expect(await pixels({ ...base, prompt: 'a lighthouse at dawn' })).not.toBe(first);
  });

  it('draws more than one colour', async () => {
    const { bytes } = await engine.generate(ctx, base);
    const stats = await sharp(bytes).stats();
    expect(stats.channels.some((channel) => channel.stdev > 5)).toBe(true);
  });

  it('edits an input image at the requested size', async () => {
    const white = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const edited = await engine.generate(ctx, { ...base, inputImage: { bytes: white, contentType: 'image/png' } });
    expect(await sharp(edited.bytes).metadata()).toMatchObject({ width: 512, height: 288 });
    const plain = await engine.generate(ctx, base);
    // The input shows through: the edit is lighter than the drawing alone.
    const mean = async (bytes: Uint8Array) => (await sharp(bytes).stats()).channels.slice(0, 3).reduce((sum, c) => sum + c.mean, 0);
    expect(await mean(edited.bytes)).toBeGreaterThan(await mean(plain.bytes));
  });

  it('refuses an input that is not an image', async () => {
    await expect(engine.generate(ctx, { ...base, inputImage: { bytes: new TextEncoder().encode('not an image'), contentType: 'image/png' } }))
      .rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
