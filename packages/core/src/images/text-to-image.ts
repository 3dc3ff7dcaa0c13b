import type { JsonObject } from '../contracts/json.js';
import { readNumber, readString } from '../responses/request-values.js';
import { textToImageSize, type ImageSize } from './aspect-ratio.js';
import { readPrompt, readSeed } from './image-request-values.js';

/** Defaults of text_to_image (spec, endpoint 12). */
export const textToImageDefaults = { aspectRatio: '1:1', guidanceScale: 3.5, steps: 4 } as const;

/** A checked text_to_image body. */
export interface TextToImageRequest {
  readonly prompt: string;
  readonly aspectRatio: string;
  readonly size: ImageSize;
  readonly guidanceScale: number;
  readonly steps: number;
  /** The seed used: the body's, or a random one for 0 or none. */
  readonly seed: number;
}

/**
 * Reads a text_to_image body: `prompt` (required), `aspect_ratio` (one of the fixed list, default 1:1),
 * `guidance_scale` (0–100, default 3.5), `num_inference_steps` (1–50, default 4), `seed` (0 or absent
 * means random). Null counts as absent; unknown keys are ignored.
 * @throws INVALID_ARGUMENT naming the field.
 */
export function parseTextToImageRequest(body: JsonObject): TextToImageRequest {
  const prompt = readPrompt(body);
  const aspectRatio = readString(body, 'aspect_ratio') ?? textToImageDefaults.aspectRatio;
  return {
    prompt,
    aspectRatio,
    size: textToImageSize(aspectRatio),
    guidanceScale: readNumber(body, 'guidance_scale', { min: 0, max: 100 }, textToImageDefaults.guidanceScale),
    steps: readNumber(body, 'num_inference_steps', { min: 1, max: 50, integer: true }, textToImageDefaults.steps),
    seed: readSeed(body),
  };
}
