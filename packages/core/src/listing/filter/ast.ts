/**
 * The checked filter tree that storage back ends consume: contract types, defined in
 * `contracts/list-query.ts` and re-exported here.
 */
export type { Position, CheckedValue, ComparisonOperator, CheckedField, CheckedFilter } from '../../contracts/list-query.js';
