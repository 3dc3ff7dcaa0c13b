import { invalidArgument } from '../errors/gateway-error.js';

/** The aspect ratios text_to_image accepts (spec, endpoint 12). */
export const textToImageAspectRatios = ['1:1', '21:9', '16:9', '3:2', '5:4', '4:5', '2:3', '9:16', '9:21', '4:3', '3:4'] as const;

/** An image's size in pixels. */
export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

/** About one megapixel, the size image models of this kind generate at. */
const TARGET_PIXELS = 1024 * 1024;
/** Both sides are multiples of this (what latent-diffusion models need). */
const STEP = 32;
const RATIO = /^([1-9][0-9]{0,3}):([1-9][0-9]{0,3})$/;

/** `W:H` as its two numbers, or undefined when it is not two positive integers below 10,000. */
export function parseAspectRatio(text: string): { w: number; h: number } | undefined {
  const match = RATIO.exec(text);
  return match ? { w: Number(match[1]), h: Number(match[2]) } : undefined;
}

/**
 * The size an aspect ratio implies: about one megapixel, both sides multiples of 32 (1:1 → 1024×1024,
 * 16:9 → 1376×768, 21:9 → 1568×672).
 */
export function sizeOfAspectRatio(ratio: { w: number; h: number }): ImageSize {
  const r = ratio.w / ratio.h;
  const round = (value: number) => Math.max(STEP, Math.round(value / STEP) * STEP);
  return { width: round(Math.sqrt(TARGET_PIXELS * r)), height: round(Math.sqrt(TARGET_PIXELS / r)) };
}

/**
 * The size of an asynchronous request's `aspect_ratio`: any `W:H` between 21:9 and 9:21 inclusive.
 * @throws INVALID_ARGUMENT for another form or a ratio outside those bounds.
 */
export function kontextSize(aspectRatio: string): ImageSize {
  const ratio = parseAspectRatio(aspectRatio);
  if (!ratio) throw invalidArgument(`aspect_ratio "${aspectRatio}" must have the form W:H, e.g. 16:9`, { field: 'aspect_ratio' });
  // Compared as cross products: exact for integers, no rounding at the bounds.
  if (ratio.w * 9 > ratio.h * 21 || ratio.w * 21 < ratio.h * 9) {
    throw invalidArgument(`aspect_ratio "${aspectRatio}" must be between 21:9 and 9:21`, { field: 'aspect_ratio' });
  }
  return sizeOfAspectRatio(ratio);
}

/**
 * The size of a text_to_image `aspect_ratio`: one of {@link textToImageAspectRatios}.
 * @throws INVALID_ARGUMENT for any other value.
 */
export function textToImageSize(aspectRatio: string): ImageSize {
  if (!(textToImageAspectRatios as readonly string[]).includes(aspectRatio)) {
    throw invalidArgument(`aspect_ratio "${aspectRatio}" must be one of ${textToImageAspectRatios.join(', ')}`, { field: 'aspect_ratio' });
  }
  return sizeOfAspectRatio(parseAspectRatio(aspectRatio)!);
}
