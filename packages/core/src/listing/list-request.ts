/**
 * The one entry point list operations use (AIP-132/158/160): checks filter, orderBy, pageSize and
 * pageToken together and hands back what the store needs plus a function that mints the next token.
 */
import { invalidArgument } from '../errors/index.js';
import type { JsonObject, JsonValue } from '../contracts/json.js';
import type { FieldDeclarations } from './fields.js';
import type { CheckedFilter } from './filter/ast.js';
import { parseFilter } from './filter/parse-filter.js';
import { parseOrderBy, type OrderTerm } from './order-by.js';
import { ParseCache } from './parse-cache.js';
import { decodePageToken, encodePageToken } from './page-token.js';
import { sortKeyOf } from './sort-key.js';

/** Parsed filters and orders, shared across requests (read-only). */
const filters = new ParseCache<CheckedFilter | undefined>();
const orders = new ParseCache<readonly OrderTerm[]>();

/** `parseFilter`, remembered per declaration set: the answer is shared and read-only. */
export function parseFilterCached(text: string, declarations: FieldDeclarations): CheckedFilter | undefined {
  return filters.get(declarations, text, () => parseFilter(text, declarations));
}

export interface ListRequestInput {
  filter?: string;
  orderBy?: string;
  pageSize?: number;
  pageToken?: string;
  /** every other query parameter that must stay equal across pages, e.g. showDeleted, readMask */
  otherParams?: Record<string, string | undefined>;
}

export interface ListRequestOptions {
  /**
   * What is listed, e.g. `accounts/acme/models` (parent and collection): bound into page tokens, so a
   * token is refused by another collection or another account even when every other parameter matches.
   */
  scope: string;
  declarations: FieldDeclarations;
  defaultOrder: string;
  secret: Uint8Array | string;
  /** Default 50. */
  defaultPageSize?: number;
  /** Default 200; larger requests are coerced to it. */
  maxPageSize?: number;
}

export interface PreparedList {
  filter?: CheckedFilter;
  /** Always ends with `name` ascending (the tiebreaker). */
  orderBy: readonly OrderTerm[];
  pageSize: number;
  /** Keyset position from the page token: serve items strictly after it under `orderBy`. */
  after?: JsonValue[];
  /** The token for the page after the one ending with `lastItemData`. */
  nextPageToken(lastItemData: JsonObject): string;
}

function positionFits(position: readonly JsonValue[], orderBy: readonly OrderTerm[]): boolean {
  if (position.length !== orderBy.length) return false;
  return orderBy.every((term, i) => {
    const value = position[i];
    if (value === null) return true;
    switch (term.declaration.type) {
      case 'string':
      case 'enum':
      case 'timestamp':
      case 'int64':
        return typeof value === 'string';
      case 'int':
      case 'double':
      case 'duration':
        return typeof value === 'number';
      case 'bool':
        return typeof value === 'boolean';
    }
  });
}

/**
 * Validates a list request. pageSize: undefined or 0 → default (50), above the maximum → maximum (200),
 * negative or not an integer → INVALID_ARGUMENT. The page token binds the scope, filter, orderBy and otherParams.
 * Throws only GatewayError INVALID_ARGUMENT.
 */
export function prepareListRequest(input: ListRequestInput, options: ListRequestOptions): PreparedList {
  const defaultPageSize = options.defaultPageSize ?? 50;
  const maxPageSize = options.maxPageSize ?? 200;
  const requested = input.pageSize;
  if (requested !== undefined && (!Number.isInteger(requested) || requested < 0)) {
    throw invalidArgument(`invalid pageSize: must be a non-negative integer, got ${String(requested)}`, {
      reason: 'INVALID_PAGE_SIZE',
      field: 'pageSize',
    });
  }
  const pageSize = requested === undefined || requested === 0 ? defaultPageSize : Math.min(requested, maxPageSize);

  const filter = parseFilterCached(input.filter ?? '', options.declarations);
  const orderText = input.orderBy === undefined || input.orderBy.trim() === '' ? options.defaultOrder : input.orderBy;
  const orderBy = orders.get(options.declarations, orderText, () => parseOrderBy(orderText, options.declarations, options.defaultOrder));

  const params: Record<string, string | undefined> = { scope: options.scope, filter: input.filter, orderBy: input.orderBy };
  for (const [key, value] of Object.entries(input.otherParams ?? {})) params[`param.${key}`] = value;

  let after: JsonValue[] | undefined;
  if (input.pageToken !== undefined && input.pageToken !== '') {
    after = decodePageToken(input.pageToken, params, options.secret);
    if (!positionFits(after, orderBy)) {
      throw invalidArgument('invalid page token', { reason: 'INVALID_PAGE_TOKEN', field: 'pageToken' });
    }
  }

  return {
    ...(filter ? { filter } : {}),
    orderBy,
    pageSize,
    ...(after ? { after } : {}),
    nextPageToken: (lastItemData) => encodePageToken(sortKeyOf(lastItemData, orderBy), params, options.secret),
  };
}
