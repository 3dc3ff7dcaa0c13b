import { describe, expect, it } from 'vitest';
import { kontextSize, textToImageAspectRatios, textToImageSize } from './aspect-ratio.js';

describe('aspect ratios', () => {
  it('sizes every text_to_image ratio at about a megapixel in multiples of 32', () => {
    for (const ratio of textToImageAspectRatios) {
      const { width, height } = textToImageSize(ratio);
      expect(width % 32).toBe(0);
      expect(height % 32).toBe(0);
      expect(width * height).toBeGreaterThan(0.9 * 1024 * 1024);
      expect(width * height).toBeLessThan(1.1 * 1024 * 1024);
      const [w, h] = ratio.split(':').map(Number) as [number, number];
      expect(Math.abs(width / height - w / h)).toBeLessThan(0.1);
    }
    expect(textToImageSize('1:1')).toEqual({ width: 1024, height: 1024 });
    expect(textToImageSize('16:9')).toEqual({ width: 1376, height: 768 });
  });

  it('refuses text_to_image ratios outside the fixed list', () => {
    expect(() => textToImageSize('7:5')).toThrow(/must be one of 1:1, 21:9/);
    expect(() => textToImageSize('1:1 ')).toThrow(/must be one of/);
  });

  it('accepts any kontext ratio between 21:9 and 9:21, bounds included', () => {
    expect(kontextSize('21:9')).toEqual({ width: 1568, height: 672 });
    expect(kontextSize('9:21')).toEqual({ width: 672, height: 1568 });
    expect(kontextSize('7:5').width).toBeGreaterThan(kontextSize('7:5').height);
    expect(kontextSize('42:18')).toEqual(kontextSize('21:9'));
  });

  it('refuses kontext ratios outside the bounds or malformed', () => {
    expect(() => kontextSize('22:9')).toThrow(/between 21:9 and 9:21/);
    expect(() => kontextSize('9:22')).toThrow(/between 21:9 and 9:21/);
    expect(() => kontextSize('0:1')).toThrow(/form W:H/);
    expect(() => kontextSize('16x9')).toThrow(/form W:H/);
    expect(() => kontextSize('1.5:1')).toThrow(/form W:H/);
  });
});
