import { sortKeyOf, type CheckedFilter } from '../listing/index.js';
import type { JsonObject, JsonValue, ListQuery } from '../ports/index.js';

/**
 * Sort keys memoized per stored body: bodies are frozen, so a key computed once stays right. Keyed by
 * the order's field paths and directions, so different orders of one collection do not collide.
 */
const sortKeyCache = new WeakMap<JsonObject, Map<string, JsonValue[]>>();

/** `compute`, remembered per argument object (for long-lived, read-only arguments: parsed orders, field declarations). */
function memoizedByObject<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const memo = new WeakMap<K, V>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      value = compute(key);
      memo.set(key, value);
    }
    return value;
  };
}

/** The signature of an order (parsed orders are shared across requests, so this is computed once each). */
export const orderSignature = memoizedByObject((orderBy: ListQuery['orderBy']) =>
  orderBy.map((t) => `${t.declaration.path.join('.')}:${t.declaration.type}`).join(','));

/** A declaration's dotted path. */
const dottedPath = memoizedByObject((declaration: { readonly path: readonly string[] }) => declaration.path.join('.'));

/** The sort key of a body under an order, from the cache when the body is a frozen stored one. */
export function cachedSortKey(data: JsonObject, orderBy: ListQuery['orderBy'], signature: string): JsonValue[] {
  if (!Object.isFrozen(data)) return sortKeyOf(data, orderBy);
  let perOrder = sortKeyCache.get(data);
  if (perOrder === undefined) {
    perOrder = new Map();
    sortKeyCache.set(data, perOrder);
  }
  let key = perOrder.get(signature);
  if (key === undefined) {
    key = sortKeyOf(data, orderBy);
    perOrder.set(signature, key);
  }
  return key;
}

/**
 * A `field = "literal"` clause the filter requires (top level, or one operand of a top-level AND) on a
 * string or enum field: the list can start from the equality index. The whole filter still runs on
 * every candidate.
 */
export function indexableEquality(filter: CheckedFilter): { path: string; value: string } | undefined {
  const clauses = filter.kind === 'and' ? filter.operands : [filter];
  for (const clause of clauses) {
    if (clause.kind !== 'compare' || clause.operator !== '=' || clause.field.mapKey !== undefined) continue;
    const { declaration } = clause.field;
    if (declaration.repeated || (declaration.type !== 'string' && declaration.type !== 'enum')) continue;
    const value = clause.value;
    if (value.type === 'string' && !value.wildcard) return { path: dottedPath(declaration), value: value.value };
    if (value.type === 'enum') return { path: dottedPath(declaration), value: value.value };
  }
  return undefined;
}
