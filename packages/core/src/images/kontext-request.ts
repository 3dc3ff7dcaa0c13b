import type { JsonObject } from '../contracts/json.js';
import { invalidArgument } from '../errors/gateway-error.js';
import type { ImageFormat } from '../ports/image-engine.js';
import { readBoolean, readEnum, readNumber, readString } from '../responses/request-values.js';
import { readPrompt, readSeed } from './image-request-values.js';

/** Limits of the asynchronous endpoint (spec, endpoint 11 and Limits). */
export const kontextLimits = {
  webhookUrlMaxLength: 2083,
  maxSafetyTolerance: 6,
  /** safety_tolerance with an input_image (image-to-image). */
  maxSafetyToleranceWithInput: 2,
} as const;

/** Defaults of the asynchronous endpoint (api-facts.md). */
export const kontextDefaults = { outputFormat: 'png', safetyTolerance: 2 } as const;

/** Where an input image comes from: bytes in the body, or a URL to fetch. */
export type InputImageSource = { readonly kind: 'base64'; readonly bytes: Uint8Array } | { readonly kind: 'url'; readonly url: string };

/** A checked body of the asynchronous endpoint; the input image is not fetched or decoded yet. */
export interface KontextRequest {
  readonly prompt: string;
  readonly inputImage: InputImageSource | undefined;
  /** The seed used: the body's, or a random one for 0 or none. */
  readonly seed: number;
  /** Undefined: 1:1, or the input image's shape. */
  readonly aspectRatio: string | undefined;
  readonly outputFormat: ImageFormat;
  readonly webhookUrl: string | undefined;
  readonly webhookSecret: string | undefined;
  readonly promptUpsampling: boolean;
  readonly safetyTolerance: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const DATA_URI = /^data:([a-z0-9.+/-]+)?(;[a-z0-9=.+-]+)*;base64,/i;

/** `input_image` as bytes (plain base64, base64url, or a `data:` URI) or as a URL to fetch later. */
function readInputImage(body: JsonObject): InputImageSource | undefined {
  const value = readString(body, 'input_image');
  if (value === null || value === '') return undefined;
  if (/^https?:\/\//i.test(value)) {
    try {
      return { kind: 'url', url: new URL(value).toString() };
    } catch {
      throw invalidArgument('input_image is not a valid URL', { field: 'input_image' });
    }
  }
  const payload = value.replace(DATA_URI, '').replace(/\s+/g, '');
  if (payload.length === 0 || payload.length % 4 === 1 || !(BASE64.test(payload) || BASE64URL.test(payload))) {
    throw invalidArgument('input_image must be a base64-encoded image or an http(s) URL', { field: 'input_image' });
  }
  return { kind: 'base64', bytes: new Uint8Array(Buffer.from(payload, BASE64.test(payload) ? 'base64' : 'base64url')) };
}

function readWebhookUrl(body: JsonObject): string | undefined {
  const value = readString(body, 'webhook_url');
  if (value === null) return undefined;
  if (value.length < 1 || value.length > kontextLimits.webhookUrlMaxLength) {
    throw invalidArgument(`webhook_url must be 1 to ${kontextLimits.webhookUrlMaxLength} characters`, { field: 'webhook_url' });
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidArgument('webhook_url is not a valid URL', { field: 'webhook_url' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidArgument('webhook_url must be an http or https URL', { field: 'webhook_url' });
  return value;
}

/**
 * Reads a body of the asynchronous endpoint: `prompt` (required), `input_image` (base64 or URL),
 * `seed`, `aspect_ratio` (checked by the caller against 21:9…9:21), `output_format` (jpeg or png,
 * default png), `webhook_url` (1–2083 characters, http or https), `webhook_secret`, `prompt_upsampling`,
 * `safety_tolerance` (0–6, default 2, at most 2 with an input image). Null counts as absent; unknown
 * keys are ignored.
 * @throws INVALID_ARGUMENT naming the field.
 */
export function parseKontextRequest(body: JsonObject): KontextRequest {
  const prompt = readPrompt(body);
  const inputImage = readInputImage(body);
  const safetyTolerance = readNumber(body, 'safety_tolerance', { min: 0, max: kontextLimits.maxSafetyTolerance, integer: true }, kontextDefaults.safetyTolerance);
  if (inputImage && safetyTolerance > kontextLimits.maxSafetyToleranceWithInput) {
    throw invalidArgument(`safety_tolerance must be at most ${kontextLimits.maxSafetyToleranceWithInput} with an input_image, got ${safetyTolerance}`, { field: 'safety_tolerance' });
  }
  const webhookSecret = readString(body, 'webhook_secret');
  return {
    prompt,
    inputImage,
    seed: readSeed(body),
    aspectRatio: readString(body, 'aspect_ratio') ?? undefined,
    outputFormat: readEnum(body, 'output_format', ['jpeg', 'png'] as const, kontextDefaults.outputFormat),
    webhookUrl: readWebhookUrl(body),
    webhookSecret: webhookSecret === null || webhookSecret === '' ? undefined : webhookSecret,
    promptUpsampling: readBoolean(body, 'prompt_upsampling', false),
    safetyTolerance,
  };
}
