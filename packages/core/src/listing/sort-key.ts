/**
 * Sort keys and the total order of list results. The memory store sorts with `compareSortKeys`; the
 * PostgreSQL adapter mirrors it: `ORDER BY <col> ASC NULLS FIRST` / `DESC NULLS LAST` per term (null is
 * the smallest value), int64 as `numeric`, strings, enums and timestamps (normalised ISO strings, which
 * sort like the instants) with `COLLATE "C"`, booleans false < true, durations as seconds.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';
import type { OrderTerm } from './order-by.js';
import { parseDuration, parseTimestamp, readPath, storedInt64 } from './values.js';

/** One stored value normalised for comparison; null when absent or not of the declared type. */
function normalise(term: OrderTerm, value: JsonValue | undefined): JsonValue {
  if (value === undefined || value === null) return null;
  switch (term.declaration.type) {
    case 'string':
    case 'enum':
      return typeof value === 'string' ? value : null;
    case 'bool':
      return typeof value === 'boolean' ? value : null;
    case 'int':
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    case 'int64':
      return storedInt64(value)?.toString() ?? null;
    case 'timestamp':
      return typeof value === 'string' ? (parseTimestamp(value)?.iso ?? null) : null;
    case 'duration':
      return typeof value === 'string' ? (parseDuration(value) ?? null) : null;
  }
}

/**
 * The values of the order terms in `data` (null when absent), normalised: int64 stays a canonical
 * decimal string, durations become seconds, timestamps ISO 8601 UTC with milliseconds.
 */
export function sortKeyOf(data: JsonObject, terms: readonly OrderTerm[]): JsonValue[] {
  return terms.map((term) => normalise(term, readPath(data, term.declaration.path)));
}

/** Rank of a value's JSON kind, so that even values of an unexpected kind get a total order. */
function kindRank(value: JsonValue): number {
  if (value === null) return 0;
  if (typeof value === 'boolean') return 1;
  if (typeof value === 'number') return 2;
  if (typeof value === 'string') return 3;
  return 4;
}

function bigintOf(value: string): bigint | undefined {
  return /^-?\d{1,40}$/.test(value) ? BigInt(value) : undefined;
}

function compareValues(a: JsonValue, b: JsonValue, term: OrderTerm): number {
  const rankA = kindRank(a);
  const rankB = kindRank(b);
  if (rankA !== rankB) return rankA - rankB; // null (rank 0) is the smallest value
  if (typeof a === 'string' && typeof b === 'string') {
    if (term.declaration.type === 'int64') {
      const x = bigintOf(a);
      const y = bigintOf(b);
      if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
      if (x !== undefined || y !== undefined) return x !== undefined ? -1 : 1;
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a === null) return 0;
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Total order of two sort keys under `terms`: per term, null is the smallest value (first ascending,
 * last descending); int64 numeric, numbers numeric, strings/enums/timestamps by UTF-16 code units,
 * booleans false < true. Returns negative, zero or positive.
 */
export function compareSortKeys(a: readonly JsonValue[], b: readonly JsonValue[], terms: readonly OrderTerm[]): number {
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i] as OrderTerm;
    const result = compareValues(a[i] ?? null, b[i] ?? null, term);
    if (result !== 0) return term.descending ? -result : result;
  }
  return 0;
}
