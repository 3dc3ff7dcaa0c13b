import { randomInt } from 'node:crypto';
import { invalidArgument } from '../errors/gateway-error.js';
import type { JsonObject } from '../contracts/json.js';
import { isPlainObject } from '../validation/paths.js';
import { readNumber, readString } from '../responses/request-values.js';

/** Largest seed accepted: JSON integers beyond it cannot be read exactly. */
export const maxSeed = Number.MAX_SAFE_INTEGER;

/**
 * An image request's body as an object. Unknown keys are kept and ignored: clients of the reference API
 * send extra keys (`samples`, `width`, `height`, …).
 * @throws INVALID_ARGUMENT when the body is not a JSON object.
 */
export function imageBody(body: unknown): JsonObject {
  if (!isPlainObject(body)) throw invalidArgument('the request body must be a JSON object');
  return body;
}

/** The required, non-blank `prompt`. */
export function readPrompt(body: JsonObject): string {
  const prompt = readString(body, 'prompt');
  if (prompt === null || prompt.trim() === '') throw invalidArgument('prompt is required', { field: 'prompt' });
  return prompt;
}

/** The seed to use: `seed` when given and not 0, else a random one (0 means random; the answer reports it). */
export function readSeed(body: JsonObject): number {
  const seed = readNumber(body, 'seed', { min: 0, max: maxSeed, integer: true }, 0);
  return seed === 0 ? randomInt(1, 2 ** 32) : seed;
}
