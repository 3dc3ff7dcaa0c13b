import { invalidArgument } from '../errors/index.js';

/**
 * Resource names, in one module: `accounts/{account}/{collection}/{id}` (and nested collections such as
 * `accounts/{a}/users/{u}/apiKeys/{k}`). Ids are 1–63 lowercase letters, digits and hyphens, neither
 * starting nor ending with a hyphen.
 */
const idPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isValidId(id: string): boolean {
  return idPattern.test(id);
}

/** Throws INVALID_ARGUMENT naming `what` when `id` is not a valid resource id. */
export function assertValidId(id: string, what: string): string {
  if (!isValidId(id)) {
    throw invalidArgument(
      `${what} "${id.length > 80 ? `${id.slice(0, 80)}…` : id}" is invalid: use 1–63 lowercase letters, digits and hyphens, not starting or ending with a hyphen`,
      { field: what, reason: 'INVALID_ID' },
    );
  }
  return id;
}

export function accountName(accountId: string): string {
  return `accounts/${accountId}`;
}

export function formatResourceName(accountId: string, collection: string, id: string): string {
  return `accounts/${accountId}/${collection}/${id}`;
}

export interface ParsedResourceName {
  readonly accountId: string;
  readonly collection: string;
  readonly id: string;
}

/**
 * Parses `accounts/{account}/{collection}/{id}`. When `collection` is given the name must be of that
 * collection. Throws INVALID_ARGUMENT naming `field` otherwise.
 */
export function parseResourceName(name: string, collection?: string, field = 'name'): ParsedResourceName {
  // Runs on every request: slices between the three slashes instead of splitting into an array.
  const first = name.startsWith('accounts/') ? 8 : -1;
  const second = first < 0 ? -1 : name.indexOf('/', first + 1);
  const third = second < 0 ? -1 : name.indexOf('/', second + 1);
  const accountId = third < 0 ? '' : name.slice(first + 1, second);
  const coll = third < 0 ? '' : name.slice(second + 1, third);
  const id = third < 0 ? '' : name.slice(third + 1);
  if (
    third < 0 ||
    (collection !== undefined && coll !== collection) ||
    coll.length === 0 ||
    !isValidId(accountId) ||
    !isValidId(id)
  ) {
    const expected = `accounts/{account_id}/${collection ?? '{collection}'}/{id}`;
    throw invalidArgument(`${field} "${name.slice(0, 200)}" is not a valid resource name of the form ${expected}`, {
      field,
      reason: 'INVALID_RESOURCE_NAME',
    });
  }
  return { accountId, collection: coll, id };
}
