/**
 * AIP-160 filtering, written in-house: no maintained AIP-160 package exists for JavaScript. The
 * structure follows einride/aip-go's `filtering` package: lexer → recursive-descent parser (raw tree with
 * positions) → checker against the resource's field declarations → back ends (the evaluator here, the
 * PostgreSQL transpiler in the adapter).
 */
import type { FieldDeclarations } from '../fields.js';
import type { CheckedFilter } from './ast.js';
import { check } from './checker.js';
import { filterError } from './errors.js';
import { FILTER_LIMITS } from './limits.js';
import { parse } from './parser.js';

/** Counts code points, stopping early once past `limit`. */
function exceeds(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let count = 0;
  for (const _char of text) if (++count > limit) return true;
  return false;
}

/**
 * Parses and checks an AIP-160 filter against the declarations. Returns undefined for an empty or blank
 * filter. Throws only GatewayError INVALID_ARGUMENT, with the position ("at position 12: …"), for syntax
 * errors, unknown fields, values of the wrong type, unknown enum values or functions, and beyond the
 * limits (2048 characters, nesting 32, 256 restrictions).
 */
export function parseFilter(text: string, declarations: FieldDeclarations): CheckedFilter | undefined {
  if (exceeds(text, FILTER_LIMITS.maxLength)) {
    throw filterError(FILTER_LIMITS.maxLength, `filter is longer than ${FILTER_LIMITS.maxLength} characters`);
  }
  const expression = parse(text);
  return expression === undefined ? undefined : check(expression, declarations);
}
