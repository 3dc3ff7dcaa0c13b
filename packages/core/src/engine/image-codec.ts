import type sharpFactory from 'sharp';
import { invalidArgument } from '../errors/gateway-error.js';
import type { ImageFormat } from '../ports/image-engine.js';

type Sharp = typeof sharpFactory;
let loading: Promise<Sharp> | undefined;

/**
 * sharp, loaded on first use: hosts that never touch images do not load its native library.
 * (`sharp` is a dependency of `@berth/core`; its prebuilt binaries come from the npm registry.)
 */
export function loadSharp(): Promise<Sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}

/** The media type of a format. */
export function contentTypeOf(format: ImageFormat): 'image/png' | 'image/jpeg' {
  return format === 'png' ? 'image/png' : 'image/jpeg';
}

/** What an input image turned out to be. */
export interface ImageInfo {
  /** `image/png`, `image/jpeg` or `image/webp`. */
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
}

const accepted: Readonly<Record<string, string>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };
/** Sides larger than this are refused (decoding such an image would take more memory than any input needs). */
export const maxInputImageSide = 8192;

/**
 * Reads an input image's header: PNG, JPEG or WebP of at most 8192 pixels a side.
 * @throws INVALID_ARGUMENT (field input_image) for anything else.
 */
export async function inspectImage(bytes: Uint8Array): Promise<ImageInfo> {
  const sharp = await loadSharp();
  let metadata: { format?: string; width?: number; height?: number };
  try {
    metadata = await sharp(bytes, { limitInputPixels: maxInputImageSide * maxInputImageSide }).metadata();
  } catch {
    throw invalidArgument('input_image is not a readable image (PNG, JPEG or WebP)', { field: 'input_image' });
  }
  const contentType = metadata.format === undefined ? undefined : accepted[metadata.format];
  const { width, height } = metadata;
  if (contentType === undefined || width === undefined || height === undefined) {
    throw invalidArgument(`input_image must be PNG, JPEG or WebP, not ${metadata.format ?? 'unknown'}`, { field: 'input_image' });
  }
  if (width > maxInputImageSide || height > maxInputImageSide) {
    throw invalidArgument(`input_image is ${width}x${height}; at most ${maxInputImageSide} pixels a side`, { field: 'input_image' });
  }
  return { contentType, width, height };
}

/** A black image of the given size: what a filtered generation returns in place of its output. */
export async function blankImage(width: number, height: number, format: ImageFormat): Promise<Uint8Array> {
  const sharp = await loadSharp();
  const image = sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } });
  const encoded = format === 'png' ? await image.png().toBuffer() : await image.jpeg().toBuffer();
  return new Uint8Array(encoded.buffer, encoded.byteOffset, encoded.byteLength);
}
