/**
 * AIP-158 page tokens, written in-house: an opaque base64url of `{v: 1, p: position, c: checksum}`.
 * `p` is the keyset position (the sort key of the last item served); `c` is an HMAC-SHA256 over a
 * canonical serialisation of the position and of every list parameter except pageSize and pageToken, so
 * a token is only accepted for the request that produced it and cannot be forged.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidArgument, type GatewayError } from '../errors/index.js';
import type { JsonValue } from '../contracts/json.js';

const VERSION = 1;
/** Tokens longer than this are garbage; positions are a few short values. */
const MAX_TOKEN_LENGTH = 16_384;

function invalidToken(): GatewayError {
  return invalidArgument('invalid page token', { reason: 'INVALID_PAGE_TOKEN', field: 'pageToken' });
}

function mismatch(): GatewayError {
  return invalidArgument('page token does not match the request (list parameters other than pageSize must stay the same)', {
    reason: 'PAGE_TOKEN_MISMATCH',
    field: 'pageToken',
  });
}

/** JSON with object keys sorted, so equal values always serialise to equal text. */
function canonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] as JsonValue)}`).join(',')}}`;
}

/** Parameters as sorted `[key, value]` pairs; undefined and empty values both mean "not given". */
function canonicalParams(params: Record<string, string | undefined>): string {
  const entries = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

function checksum(position: readonly JsonValue[], params: Record<string, string | undefined>, secret: Uint8Array | string): Buffer {
  return createHmac('sha256', secret)
    .update(`berth-page-token/v${VERSION}\n${canonical([...position])}\n${canonicalParams(params)}`)
    .digest();
}

/** Encodes a keyset position bound to the request's other list parameters (without pageSize, pageToken). */
export function encodePageToken(
  position: readonly JsonValue[],
  params: Record<string, string | undefined>,
  secret: Uint8Array | string,
): string {
  const body = { v: VERSION, p: [...position], c: checksum(position, params, secret).toString('base64url') };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (depth > 8) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((element) => isJsonValue(element, depth + 1));
  if (isPlainObject(value)) return Object.values(value).every((element) => isJsonValue(element, depth + 1));
  return false;
}

/**
 * Decodes a page token and returns its position. Throws INVALID_ARGUMENT: "invalid page token" when it
 * is garbled, truncated or of another version; "page token does not match the request" when its checksum
 * does not match these parameters (a changed parameter, another secret, or a forged position).
 */
export function decodePageToken(
  token: string,
  params: Record<string, string | undefined>,
  secret: Uint8Array | string,
): JsonValue[] {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalidToken();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken();
  }
  if (!isPlainObject(body) || body.v !== VERSION || !Array.isArray(body.p) || typeof body.c !== 'string') throw invalidToken();
  if (Object.keys(body).length !== 3 || !isJsonValue(body.p)) throw invalidToken();
  const position = body.p as JsonValue[];
  const given = Buffer.from(body.c, 'base64url');
  const expected = checksum(position, params, secret);
  if (given.length !== expected.length) throw invalidToken();
  if (!timingSafeEqual(given, expected)) throw mismatch();
  return position;
}
