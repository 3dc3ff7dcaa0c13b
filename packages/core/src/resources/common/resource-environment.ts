import { invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { Storage, StoredResource } from '../../ports/storage.js';
import { parseResourceName } from '../../names/resource-name.js';
import { TransactionScopedStorage } from './transaction-scoped-storage.js';

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
   * Checks that `reference` names an existing resource of `collection` in `accountId`. Throws
   * INVALID_ARGUMENT naming `field` otherwise: a dangling reference is a bad argument, and a reference
   * to another account is refused the same way whether or not that resource exists.
   */
  async requireReference(
    ctx: RequestContext,
    reference: string,
    collection: string,
    accountId: string,
    field: string,
  ): Promise<StoredResource> {
    const parsed = parseResourceName(reference, collection, field);
    if (parsed.accountId !== accountId) {
      throw invalidArgument(`${field} "${reference}" must name a ${collection} resource in accounts/${accountId}`, { field, reason: 'INVALID_REFERENCE' });
    }
    const found = await this.storage.resources.get(ctx, reference);
    if (!found) {
      throw invalidArgument(`${field} "${reference}" does not exist`, { field, reason: 'REFERENCE_NOT_FOUND' });
    }
    return found;
  }
}
