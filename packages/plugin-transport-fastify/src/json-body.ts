import { assertNoNulInJson, invalidArgument, type GatewayError } from '@berth/core';

/** Bounds on what a JSON request body may hold, checked by a linear scan before `JSON.parse`. */
export interface JsonBodyLimits {
  /** Deepest nesting of objects and arrays (the top-level value is depth 1). */
  readonly maxDepth: number;
  /** Most object members in the whole body. */
  readonly maxKeys: number;
  /** Most object members plus array elements in the whole body. */
  readonly maxValues: number;
  /** Longest string (key or value), in UTF-16 units of its JSON text. */
  readonly maxStringLength: number;
}

/**
 * Defaults. V8's `JSON.parse` slows down sharply with many object keys (each new key name creates
 * hidden-class transitions: 300,000 distinct keys took a second), and each number that is not a small
 * integer is a heap allocation (500,000 of them took 300 ms on a busy machine); long strings parse fast
 * but are then walked by validation. 10,000 keys and 100,000 values parse in a few tens of milliseconds
 * at worst; an OpenAI-compatible body (messages, tools, a prompt of token ids) stays far below. Control-plane
 * fields are short, so its strings are capped at 64 Ki; inference strings (long prompts, images as data
 * URLs) only by the body size. See BENCHMARKS.md, "hostile-bodies".
 */
export const defaultJsonBodyLimits: Omit<JsonBodyLimits, 'maxDepth'> = { maxKeys: 10_000, maxValues: 100_000, maxStringLength: 65_536 };

/** Reason of every "body too large" failure; the transport answers it with HTTP 413. */
export const bodyTooLargeReason = 'BODY_TOO_LARGE';

export const bodyTooLarge = (message: string): GatewayError => invalidArgument(message, { reason: bodyTooLargeReason });

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/** Index of the quote that closes the string whose opening quote is at `open`, or -1 when unterminated. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let backslashes = 0;
    for (let i = at - 1; text.charCodeAt(i) === BACKSLASH; i -= 1) backslashes += 1;
    if ((backslashes & 1) === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/**
 * Throws when `text` would nest deeper, or hold more keys or values, than `limits` allow. One pass,
 * stopping at the first excess; string contents are skipped with `indexOf` (native speed). It does not
 * validate the syntax: `JSON.parse` does that afterwards, on a body now known to be cheap to parse.
 */
export function assertJsonWithinLimits(text: string, limits: JsonBodyLimits): void {
  let depth = 0;
  let keys = 0;
  let separators = 0;
  const length = text.length;
  for (let i = 0; i < length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const close = closingQuote(text, i);
      if (close === -1) return;
      if (close - i - 1 > limits.maxStringLength) throw bodyTooLarge(`request body has a string longer than ${limits.maxStringLength} characters`);
      i = close;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth += 1;
      if (depth > limits.maxDepth) throw invalidArgument(`request body nests deeper than ${limits.maxDepth} levels`, { reason: 'JSON_TOO_DEEP' });
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth -= 1;
    } else if (c === COLON) {
      keys += 1;
      if (keys > limits.maxKeys) throw bodyTooLarge(`request body has more than ${limits.maxKeys} object keys`);
    } else if (c === COMMA) {
      separators += 1;
      if (separators >= limits.maxValues) throw bodyTooLarge(`request body has more than ${limits.maxValues} values`);
    }
  }
}

/** Parses a JSON request body within `limits`: an empty body is `undefined`; bad JSON is 400 INVALID_JSON. */
export function parseJsonBody(text: string, limits: JsonBodyLimits): unknown {
  if (text.length === 0 || text.trim() === '') return undefined;
  assertJsonWithinLimits(text, limits);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalidArgument(`request body is not valid JSON: ${(error as Error).message}`, { reason: 'INVALID_JSON' });
  }
  // NUL can only arrive escaped (raw control characters are not JSON): walk the body only when the text has one.
  if (text.includes('u0000')) assertNoNulInJson(parsed);
  return parsed;
}
