import { failedPrecondition, invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { parseFilter, parseOrderBy } from '../../listing/index.js';
import { accountName, parseResourceName } from '../../names/resource-name.js';
import type { ResourceStore } from '../../ports/storage.js';
import { isPlainObject } from '../../validation/paths.js';
import { userFields } from './user-fields.js';
import type { User } from './user-schema.js';

/** Rules of a new user: `role` is required (the schema allows it to be absent in a PATCH). */
export function applyUserCreateRules(user: User): void {
  if (user.role === undefined) throw invalidArgument('field "role" is required', { field: 'role', reason: 'INVALID_FIELD' });
}

/**
 * A PATCH body must carry the user's `name`, equal to the path's name (spec, endpoint 4: "the body's
 * user name must be populated with the updated resource's name").
 */
export function assertBodyNamesUser(body: unknown, name: string): void {
  const bodyName = isPlainObject(body) ? body.name : undefined;
  if (bodyName === undefined || bodyName === '') {
    throw invalidArgument(`the body's name must be set to the updated user's name "${name}"`, { field: 'name' });
  }
  if (bodyName !== name) {
    throw invalidArgument(`body name "${String(bodyName)}" must equal the resource name "${name}"`, { field: 'name' });
  }
}

const adminFilter = parseFilter('role = admin', userFields);
const byName = parseOrderBy('name', userFields, 'name');

/**
 * The storage lock (`StorageTransaction.lock`) of the "at least one admin" invariant of an account:
 * every demotion or deletion of a user takes it before it reads anything.
 */
export function lastAdminLockKey(accountId: string): string {
  return `last-admin:${accountName(accountId)}`;
}

/**
 * Throws FAILED_PRECONDITION when `userName` is the only admin of its account: an account must keep
 * at least one admin, or nobody could manage its users again. Call it inside the storage transaction
 * of the write, after taking {@link lastAdminLockKey}, so two concurrent demotions cannot both pass.
 */
export async function assertAnotherAdminExists(ctx: RequestContext, store: ResourceStore, userName: string, action: string): Promise<void> {
  const { accountId } = parseResourceName(userName, 'users');
  const admins = await store.list(ctx, {
    parent: accountName(accountId),
    collection: 'users',
    ...(adminFilter ? { filter: adminFilter } : {}),
    orderBy: byName,
    pageSize: 2,
  });
  if (!admins.items.some((item) => item.name !== userName)) {
    throw failedPrecondition(`cannot ${action} ${userName}: it is the last admin of accounts/${accountId}`, { reason: 'LAST_ADMIN' });
  }
}

/** Rules on the merged result of a user update: the last admin may not be demoted. */
export async function applyUserUpdateRules(ctx: RequestContext, next: User, previous: User, store: ResourceStore): Promise<void> {
  if (previous.role === 'admin' && next.role !== 'admin') {
    await assertAnotherAdminExists(ctx, store, next.name, 'demote');
  }
}
