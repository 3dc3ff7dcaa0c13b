/**
 * Literal and stored-value normalisation shared by the filter checker, the in-memory evaluator and the
 * sort keys, so that a value typed by a client and a value read from a stored resource are compared in
 * one way. The PostgreSQL adapter mirrors these rules (see `filter/evaluator.ts`).
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';

/** protobuf Timestamp range: 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z (ms precision here). */
const MIN_TIMESTAMP_MS = -62135596800000;
const MAX_TIMESTAMP_MS = 253402300799999;
/** protobuf Duration range: ±315,576,000,000 seconds (10,000 years). */
const MAX_DURATION_SECONDS = 315576000000;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** A timestamp after normalisation: ISO 8601 UTC with milliseconds, and the epoch in ms. */
export interface NormalisedTimestamp {
  readonly iso: string;
  readonly epochMs: number;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Parses an RFC 3339 date-time (`2024-05-01T12:00:00Z`, `…T12:00:00.123456+02:00`). Sub-millisecond
 * digits are truncated. Returns undefined for anything else, or outside the protobuf Timestamp range.
 */
export function parseTimestamp(text: string): NormalisedTimestamp | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
  let offsetMinutes = 0;
  if (m[8] !== undefined) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[8] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  const epochMs = date.getTime() - offsetMinutes * 60_000;
  if (!Number.isFinite(epochMs) || epochMs < MIN_TIMESTAMP_MS || epochMs > MAX_TIMESTAMP_MS) return undefined;
  return { iso: new Date(epochMs).toISOString(), epochMs };
}

const DURATION = /^(-)?(\d{1,12})(?:\.(\d{1,9}))?s$/;

/** Parses a protobuf-JSON duration (`"30s"`, `"1.5s"`, `"-0.25s"`) to seconds; undefined otherwise. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const magnitude = Number(m[2]) + (m[3] === undefined ? 0 : Number(`0.${m[3]}`));
  if (magnitude > MAX_DURATION_SECONDS) return undefined;
  return m[1] === '-' && magnitude !== 0 ? -magnitude : magnitude;
}

/** Canonical decimal form of an int64 written as digits (`"007"` → `"7"`); undefined if not an int64. */
export function canonicalInt64(text: string): string | undefined {
  if (!/^-?\d{1,40}$/.test(text)) return undefined;
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX) return undefined;
  return value.toString();
}

const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A finite decimal number literal (`42`, `-1.5`, `2e3`); undefined otherwise. */
export function parseNumberLiteral(text: string): number | undefined {
  if (!NUMBER.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** Reads a value at a camelCase path; only own properties count, so `__proto__` and friends are absent. */
export function readPath(data: JsonValue | undefined, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

/** Sets an own property even when the key is `__proto__` (plain assignment would change the prototype). */
export function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Stored int64 (JSON string of digits, or an integral JSON number) as a BigInt; undefined if neither. */
export function storedInt64(value: JsonValue | undefined): bigint | undefined {
  if (typeof value === 'string') {
    const canonical = canonicalInt64(value);
    return canonical === undefined ? undefined : BigInt(canonical);
  }
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return undefined;
}

/**
 * Matches `value` against `pattern` where `*` stands for any sequence (also empty), case-sensitively,
 * over the whole value. Iterative with single-star backtracking: O(n·m) worst case, no regular
 * expression, so a client cannot make it explode.
 */
export function wildcardMatch(pattern: string, value: string): boolean {
  let p = 0;
  let v = 0;
  let starP = -1;
  let starV = 0;
  while (v < value.length) {
    if (p < pattern.length && pattern[p] === '*') {
      starP = p++;
      starV = v;
    } else if (p < pattern.length && pattern[p] === value[v]) {
      p++;
      v++;
    } else if (starP >= 0) {
      p = starP + 1;
      v = ++starV;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** snake_case → camelCase for one path segment (`scale_up_window` → `scaleUpWindow`); camelCase stays. */
export function snakeToCamel(segment: string): string {
  return segment.replace(/_([a-z0-9])/g, (_match, c: string) => c.toUpperCase());
}
