import { invalidArgument, type GatewayError } from '@berth/core';

/** Bounds on what a JSON request body may hold, checked by a linear scan before `JSON.parse`. */
export interface JsonBodyLimits {
  /** Deepest nesting of objects and arrays (the top-level value is depth 1). */
  readonly maxDepth: number;
  /** Most object members in the whole body. */
  readonly maxKeys: number;
  /** Most object members plus array elements in the whole body. */
  readonly maxValues: number;
}

/**
 * Defaults: V8's `JSON.parse` slows down sharply with many object keys (each new key name creates
 * hidden-class transitions; one object of 1.1 M keys takes over a second), while array elements and long
 * strings stay cheap. 10,000 keys parse in a few milliseconds at worst; no request the gateway or an
 * OpenAI-compatible engine accepts comes near (BENCHMARKS.md, "hostile bodies").
 */
export const defaultJsonBodyLimits: Omit<JsonBodyLimits, 'maxDepth'> = { maxKeys: 10_000, maxValues: 500_000 };

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
      i = closingQuote(text, i);
      if (i === -1) return;
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
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidArgument(`request body is not valid JSON: ${(error as Error).message}`, { reason: 'INVALID_JSON' });
  }
}
