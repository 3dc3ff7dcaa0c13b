import { invalidArgument, permissionDenied } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { JsonObject } from '../../ports/json.js';
import type { Storage, StoredResource } from '../../ports/storage.js';
import { parseResourceName } from '../../names/resource-name.js';
import { TransactionScopedStorage } from './transaction-scoped-storage.js';

/**
 * Checks that `reference` is a well-formed name of `collection` in `accountId`. A name in another account
 * answers 403 PERMISSION_DENIED with the same message as any other call on that account, whether or not
 * the resource exists there (docs/decisions.md: another account is opaque).
 */
export function assertSameAccountReference(reference: string, collection: string, accountId: string, field: string): void {
  const parsed = parseResourceName(reference, collection, field);
  if (parsed.accountId !== accountId) throw permissionDenied(`permission denied on accounts/${parsed.accountId}`);
}

/** A stored resource whose body is of its kind's type `T`. */
export interface StoredResourceOf<T extends JsonObject> extends StoredResource {
  readonly data: T;
}

/**
 * A stored row of one kind seen as that kind's type `T`. Storage holds only bodies the kind's service
 * wrote after checking them against its schema, so this is where rows become typed resources.
 */
export function storedOf<T extends JsonObject>(row: StoredResource): StoredResourceOf<T> {
  return row as StoredResourceOf<T>;
}

/** What resource rules may use: storage, time, ids, and reference checks. */
export class ResourceEnvironment {
  /**
   * The storage given, seen through a {@link TransactionScopedStorage}: inside `storage.transaction(...)`
   * (e.g. a `ResourceService.mutate`), every call a rule makes joins that transaction.
   */
  readonly storage: TransactionScopedStorage;

  constructor(
    storage: Storage,
    readonly clock: Clock,
    readonly ids: IdGenerator,
  ) {
    this.storage = TransactionScopedStorage.over(storage);
  }

  nowIso(): string {
    return this.clock.now().toISOString();
  }

  /**
   * Checks that `reference` names an existing resource of `collection` in `accountId`. A reference to
   * another account answers 403 PERMISSION_DENIED whether or not that resource exists; a dangling
   * reference is INVALID_ARGUMENT naming `field`. `T` is the type of `collection`'s resources (its
   * service stored them, after checking them against its schema).
   */
  async requireReference<T extends JsonObject = JsonObject>(
    ctx: RequestContext,
    reference: string,
    collection: string,
    accountId: string,
    field: string,
  ): Promise<StoredResourceOf<T>> {
    assertSameAccountReference(reference, collection, accountId, field);
    const found = await this.storage.resources.get(ctx, reference);
    if (!found) {
      throw invalidArgument(`${field} "${reference}" does not exist`, { field, reason: 'REFERENCE_NOT_FOUND' });
    }
    return storedOf<T>(found);
  }
}
