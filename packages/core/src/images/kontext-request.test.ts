import { describe, expect, it } from 'vitest';
import { parseKontextRequest } from './kontext-request.js';

const pixel = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('parseKontextRequest', () => {
  it('fills the defaults and ignores unknown keys', () => {
    const request = parseKontextRequest({ prompt: 'a fox', extra: true });
    expect(request).toMatchObject({
      prompt: 'a fox', inputImage: undefined, aspectRatio: undefined, outputFormat: 'png', safetyTolerance: 2,
      promptUpsampling: false, webhookUrl: undefined, webhookSecret: undefined,
    });
    expect(request.seed).toBeGreaterThan(0);
  });

  it('reads base64, data URIs and URLs as input images', () => {
    const plain = parseKontextRequest({ prompt: 'p', input_image: pixel.toString('base64') });
    expect(plain.inputImage).toEqual({ kind: 'base64', bytes: new Uint8Array(pixel) });
    const dataUri = parseKontextRequest({ prompt: 'p', input_image: `data:image/png;base64,${pixel.toString('base64')}` });
    expect(dataUri.inputImage).toEqual(plain.inputImage);
    expect(parseKontextRequest({ prompt: 'p', input_image: 'https://example.com/a.png' }).inputImage).toEqual({ kind: 'url', url: 'https://example.com/a.png' });
    expect(parseKontextRequest({ prompt: 'p', input_image: null }).inputImage).toBeUndefined();
  });

  it('limits safety_tolerance to 0..6, and to 2 with an input image', () => {
    expect(parseKontextRequest({ prompt: 'p', safety_tolerance: 6 }).safetyTolerance).toBe(6);
    expect(parseKontextRequest({ prompt: 'p', safety_tolerance: 0 }).safetyTolerance).toBe(0);
    expect(() => parseKontextRequest({ prompt: 'p', safety_tolerance: 7 })).toThrow(/safety_tolerance must be from 0 to 6/);
    expect(() => parseKontextRequest({ prompt: 'p', safety_tolerance: -1 })).toThrow(/from 0 to 6/);
    expect(() => parseKontextRequest({ prompt: 'p', safety_tolerance: 3, input_image: 'https://example.com/a.png' }))
      .toThrow(/at most 2 with an input_image/);
    expect(parseKontextRequest({ prompt: 'p', safety_tolerance: 2, input_image: 'https://example.com/a.png' }).safetyTolerance).toBe(2);
  });

  it('checks output_format, webhook_url and input_image', () => {
    expect(parseKontextRequest({ prompt: 'p', output_format: 'jpeg' }).outputFormat).toBe('jpeg');
    expect(() => parseKontextRequest({ prompt: 'p', output_format: 'webp' })).toThrow(/output_format must be one of jpeg, png/);
    expect(() => parseKontextRequest({ prompt: 'p', webhook_url: '' })).toThrow(/webhook_url must be 1 to 2083 characters/);
    expect(() => parseKontextRequest({ prompt: 'p', webhook_url: `https://example.com/${'a'.repeat(2064)}` })).toThrow(/1 to 2083/);
    expect(parseKontextRequest({ prompt: 'p', webhook_url: `https://example.com/${'a'.repeat(2063)}` }).webhookUrl).toHaveLength(2083);
    expect(() => parseKontextRequest({ prompt: 'p', webhook_url: 'ftp://example.com/' })).toThrow(/http or https/);
    expect(() => parseKontextRequest({ prompt: 'p', webhook_url: 'not a url' })).toThrow(/not a valid URL/);
    expect(() => parseKontextRequest({ prompt: 'p', input_image: 'not base64!' })).toThrow(/base64-encoded image or an http\(s\) URL/);
    expect(() => parseKontextRequest({ prompt: 'p', prompt_upsampling: 'yes' })).toThrow(/prompt_upsampling must be a boolean/);
    expect(() => parseKontextRequest({})).toThrow(/prompt is required/);
  });

  it('keeps the webhook settings', () => {
    expect(parseKontextRequest({ prompt: 'p', webhook_url: 'https://hooks.example.com/x', webhook_secret: 'whsec_abc', prompt_upsampling: true }))
      .toMatchObject({ webhookUrl: 'https://hooks.example.com/x', webhookSecret: 'whsec_abc', promptUpsampling: true });
  });
});
