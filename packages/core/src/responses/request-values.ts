/**
 * Small readers for request bodies of the Responses API. Each throws INVALID_ARGUMENT naming the
 * parameter (`param` on the inference surface) with an OpenAI-style `code`.
 */
import { invalidArgument, type GatewayError } from '../errors/index.js';
import type { JsonObject } from '../contracts/json.js';

/** The `code` of a validation error, as the reference API names them (rendered lowercase). */
export type InvalidReason = 'INVALID_VALUE' | 'INVALID_TYPE' | 'MISSING_REQUIRED_PARAMETER' | 'UNKNOWN_PARAMETER' | 'UNSUPPORTED_VALUE' | 'UNSUPPORTED_PARAMETER';

export function invalid(message: string, param: string | null, reason: InvalidReason = 'INVALID_VALUE'): GatewayError {
  return invalidArgument(message, param === null ? { reason } : { field: param, reason });
}

export const isAbsent = (value: unknown): value is null | undefined => value === undefined || value === null;

/** A number within [min, max] (integers only when `integer`), or `fallback` when absent or null. */
export function readNumber<F extends number | null>(
  body: JsonObject, key: string, range: { min: number; max?: number; integer?: boolean }, fallback: F,
): number | F {
  const value = body[key];
  if (isAbsent(value)) return fallback;
  const integer = range.integer === true;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw invalid(`${key} must be ${integer ? 'an integer' : 'a number'}`, key, 'INVALID_TYPE');
  }
  if (value < range.min || (range.max !== undefined && value > range.max)) {
    const bounds = range.max === undefined ? `at least ${range.min}` : `from ${range.min} to ${range.max}`;
    throw invalid(`${key} must be ${bounds}, got ${value}`, key);
  }
  return value;
}

export function readBoolean(body: JsonObject, key: string, fallback: boolean): boolean {
  const value = body[key];
  if (isAbsent(value)) return fallback;
  if (typeof value !== 'boolean') throw invalid(`${key} must be a boolean`, key, 'INVALID_TYPE');
  return value;
}

/** A string, or `null` when absent; `maxLength` bounds it. */
export function readString(body: JsonObject, key: string, maxLength?: number, param: string = key): string | null {
  const value = body[key];
  if (isAbsent(value)) return null;
  if (typeof value !== 'string') throw invalid(`${param} must be a string`, param, 'INVALID_TYPE');
  if (maxLength !== undefined && value.length > maxLength) throw invalid(`${param} must be at most ${maxLength} characters`, param);
  return value;
}

/** One of `values`, or `fallback` when absent or null. */
export function readEnum<T extends string, F extends T | null>(body: JsonObject, key: string, values: readonly T[], fallback: F, param: string = key): T | F {
  const value = body[key];
  if (isAbsent(value)) return fallback;
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
    throw invalid(`${param} must be one of ${values.join(', ')}`, param, 'UNSUPPORTED_VALUE');
  }
  return value as T;
}
