/**
 * The listing layer (Google AIP-132 list, AIP-158 pagination, AIP-160 filtering, AIP-161 field masks),
 * written by hand: no maintained AIP-160 package exists for JavaScript. Structured like einride/aip-go.
 */
export * from './fields.js';
export * from './filter/ast.js';
export { parseFilter } from './filter/parse-filter.js';
export { evaluateFilter } from './filter/evaluator.js';
export { FILTER_LIMITS } from './filter/limits.js';
export * from './order-by.js';
export { sortKeyOf, compareSortKeys } from './sort-key.js';
export { encodePageToken, decodePageToken } from './page-token.js';
export { parseFieldMask, applyReadMask, applyUpdateMask } from './field-mask.js';
export { prepareListRequest, parseFilterCached, type ListRequestInput, type ListRequestOptions, type PreparedList } from './list-request.js';
export { resolveField, nameDeclaration, type ResolvedField } from './field-names.js';
export { parseTimestamp, parseDuration, canonicalInt64, wildcardMatch, readPath, type NormalisedTimestamp } from './values.js';
