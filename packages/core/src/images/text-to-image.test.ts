import { describe, expect, it } from 'vitest';
import { parseTextToImageRequest } from './text-to-image.js';
import { imageBody } from './image-request-values.js';

describe('parseTextToImageRequest', () => {
  it('fills the spec defaults and tolerates unknown keys', () => {
    const request = parseTextToImageRequest(imageBody({ prompt: 'a cat', samples: 1, width: 512, height: 512 }));
    expect(request).toMatchObject({ prompt: 'a cat', aspectRatio: '1:1', size: { width: 1024, height: 1024 }, guidanceScale: 3.5, steps: 4 });
    expect(Number.isInteger(request.seed) && request.seed > 0).toBe(true);
  });

  it('keeps a given seed and draws a random one for 0 or null', () => {
    expect(parseTextToImageRequest({ prompt: 'p', seed: 1234 }).seed).toBe(1234);
    const seeds = new Set(Array.from({ length: 5 }, () => parseTextToImageRequest({ prompt: 'p', seed: 0 }).seed));
    expect(seeds.has(0)).toBe(false);
    expect(seeds.size).toBeGreaterThan(1);
    expect(parseTextToImageRequest({ prompt: 'p', seed: null }).seed).toBeGreaterThan(0);
  });

  it('reads the other fields', () => {
    expect(parseTextToImageRequest({ prompt: 'p', aspect_ratio: '9:21', guidance_scale: 7, num_inference_steps: 8 }))
      .toMatchObject({ aspectRatio: '9:21', size: { width: 672, height: 1568 }, guidanceScale: 7, steps: 8 });
  });

  it('refuses bad values, naming the field', () => {
    const bad = (body: Record<string, unknown>) => () => parseTextToImageRequest(body as never);
    expect(() => imageBody([])).toThrow(/JSON object/);
    expect(bad({})).toThrow(/prompt is required/);
    expect(bad({ prompt: '  ' })).toThrow(/prompt is required/);
    expect(bad({ prompt: 3 })).toThrow(/prompt must be a string/);
    expect(bad({ prompt: 'p', aspect_ratio: '7:5' })).toThrow(/aspect_ratio "7:5" must be one of/);
    expect(bad({ prompt: 'p', guidance_scale: 'high' })).toThrow(/guidance_scale must be a number/);
    expect(bad({ prompt: 'p', num_inference_steps: 2.5 })).toThrow(/num_inference_steps must be an integer/);
    expect(bad({ prompt: 'p', num_inference_steps: 0 })).toThrow(/num_inference_steps must be from 1 to 50/);
    expect(bad({ prompt: 'p', seed: -1 })).toThrow(/seed must be from 0/);
    expect(bad({ prompt: 'p', seed: 1.5 })).toThrow(/seed must be an integer/);
  });
});
