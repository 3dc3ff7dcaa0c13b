/**
 * The in-memory back end of a checked filter. Its semantics are chosen so that a SQL back end can
 * reproduce them exactly:
 *
 * - A field is ABSENT when its path is missing or holds JSON null (for a map entry: the key is missing
 *   or its value is null). A stored value that does not have the declared type (or an unparsable
 *   timestamp, duration or int64) behaves as absent too, except for `= null` (it is present).
 * - `= null` is true exactly when absent; `!= null` exactly when present.
 * - Every other comparison, including `!=` with a value, is FALSE when the field is absent. Leaves are
 *   two-valued, so `NOT` is plain negation: `NOT a = "x"` matches items where `a` is absent, while
 *   `a != "x"` does not. (SQL: wrap every leaf in `COALESCE(<leaf>, false)`; never let NULL reach NOT.)
 * - int64 compare numerically (BigInt; SQL `numeric`), timestamps by instant (epoch ms), durations by
 *   seconds, numbers numerically, strings by UTF-16 code unit order (SQL `COLLATE "C"`), enums and
 *   booleans by equality only.
 * - String `=`/`!=`/`:` with `wildcard: true`: `*` matches any sequence (also empty) over the whole
 *   value, case-sensitively (SQL `LIKE` with `*`→`%` and `%`, `_`, `\` escaped). `!=` with a wildcard is
 *   true when the value is present and does not match.
 * - `field:value` on a scalar is `field = value`; on a repeated field, some element equals the value
 *   (wildcards apply per element); on a map without a key (`labels:env`), the key is present (non-null).
 * - `field:*` (no value) is presence: present and, for strings, arrays and maps, not empty.
 * - `global` (a bare literal): some listed field holds a string that contains the text, compared after
 *   `toLowerCase()` on both sides (SQL `strpos(lower(col), lower($1)) > 0`).
 */
import type { JsonValue, JsonObject } from '../../contracts/json.js';
import { parseDuration, parseTimestamp, readPath, storedInt64, wildcardMatch } from '../values.js';
import type { CheckedField, CheckedFilter, CheckedValue, ComparisonOperator } from './ast.js';

function isAbsent(value: JsonValue | undefined): value is null | undefined {
  return value === undefined || value === null;
}

function fieldValue(field: CheckedField, data: JsonObject): JsonValue | undefined {
  const value = readPath(data, field.declaration.path);
  if (field.mapKey === undefined) return value;
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return Object.hasOwn(value, field.mapKey) ? value[field.mapKey] : undefined;
}

function order(sign: number, operator: ComparisonOperator): boolean {
  switch (operator) {
    case '=':
      return sign === 0;
    case '!=':
      return sign !== 0;
    case '<':
      return sign < 0;
    case '<=':
      return sign <= 0;
    case '>':
      return sign > 0;
    case '>=':
      return sign >= 0;
  }
}

function sign(a: number | bigint | string, b: number | bigint | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Strings by UTF-16 code units; equality tests (the common case, run per candidate) compare once. */
function textOrder(stored: string, operator: ComparisonOperator, value: string): boolean {
  if (operator === '=') return stored === value;
  if (operator === '!=') return stored !== value;
  return order(sign(stored, value), operator);
}

/** One stored (present, non-null) value against one non-null checked value; false on type mismatch. */
function compareValue(stored: JsonValue, operator: ComparisonOperator, value: CheckedValue): boolean {
  switch (value.type) {
    case 'string':
      if (typeof stored !== 'string') return false;
      if (value.wildcard && (operator === '=' || operator === '!=')) {
        return wildcardMatch(value.value, stored) === (operator === '=');
      }
      return textOrder(stored, operator, value.value);
    case 'enum':
      return typeof stored === 'string' && textOrder(stored, operator, value.value);
    case 'bool':
      return typeof stored === 'boolean' && order(stored === value.value ? 0 : 1, operator);
    case 'number':
      return typeof stored === 'number' && Number.isFinite(stored) && order(sign(stored, value.value), operator);
    case 'int64': {
      const int = storedInt64(stored);
      return int !== undefined && order(sign(int, BigInt(value.value)), operator);
    }
    case 'timestamp': {
      const time = typeof stored === 'string' ? parseTimestamp(stored) : undefined;
      return time !== undefined && order(sign(time.epochMs, value.epochMs), operator);
    }
    case 'duration': {
      const seconds = typeof stored === 'string' ? parseDuration(stored) : undefined;
      return seconds !== undefined && order(sign(seconds, value.seconds), operator);
    }
    case 'null':
      return false;
  }
}

function isEmpty(value: JsonValue): boolean {
  if (typeof value === 'string') return value.length === 0;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0;
  return false;
}

function evaluateHas(filter: Extract<CheckedFilter, { kind: 'has' }>, data: JsonObject): boolean {
  const { field, value } = filter;
  const stored = fieldValue(field, data);
  if (isAbsent(stored)) return false;
  if (value === undefined) return !isEmpty(stored);
  const { declaration } = field;
  if (declaration.map && field.mapKey === undefined) {
    if (typeof stored !== 'object' || Array.isArray(stored) || value.type !== 'string') return false;
    return Object.hasOwn(stored, value.value) && !isAbsent(stored[value.value]);
  }
  if (declaration.repeated) {
    return Array.isArray(stored) && stored.some((element) => !isAbsent(element) && compareValue(element, '=', value));
  }
  return compareValue(stored, '=', value);
}

function evaluateGlobal(filter: Extract<CheckedFilter, { kind: 'global' }>, data: JsonObject): boolean {
  const needle = filter.text.toLowerCase();
  return filter.fields.some((declaration) => {
    const stored = readPath(data, declaration.path);
    return typeof stored === 'string' && stored.toLowerCase().includes(needle);
  });
}

/** Evaluates a checked filter against one resource body. Never throws. Semantics: see the module comment. */
export function evaluateFilter(filter: CheckedFilter, data: JsonObject): boolean {
  switch (filter.kind) {
    case 'and':
      return filter.operands.every((operand) => evaluateFilter(operand, data));
    case 'or':
      return filter.operands.some((operand) => evaluateFilter(operand, data));
    case 'not':
      return !evaluateFilter(filter.operand, data);
    case 'compare': {
      const stored = fieldValue(filter.field, data);
      if (filter.value.type === 'null') return isAbsent(stored) === (filter.operator === '=');
      if (isAbsent(stored)) return false;
      return compareValue(stored, filter.operator, filter.value);
    }
    case 'has':
      return evaluateHas(filter, data);
    case 'global':
      return evaluateGlobal(filter, data);
  }
}
