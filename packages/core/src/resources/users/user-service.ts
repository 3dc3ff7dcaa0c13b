import type { RequestContext } from '../../kernel/request-context.js';
import type { PrincipalChangeListener } from '../../ports/authenticator.js';
import type { StorageTransaction } from '../../ports/storage.js';
import { crudService } from '../common/crud-service.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import type { PreconditionOptions } from '../common/resource-service.js';
import type { GatewaySecrets } from '../common/secrets.js';
import type { TransactionScopedStorage, TransactionWork } from '../common/transaction-scoped-storage.js';
import { userDefinition } from './user-definition.js';
import { assertAnotherAdminExists, assertBodyNamesUser, lastAdminLockKey } from './user-rules.js';
import type { User } from './user-schema.js';

/** Told after a user is deleted (contributed to `userDeletionHooksToken`). */
export interface UserDeletionHook {
  userDeleted(ctx: RequestContext, userName: string): Promise<void>;
}

/**
 * Users of an account. Every change is synchronous (see the state machine). Create (`role` is required;
 * throws PERMISSION_DENIED, INVALID_ARGUMENT, ALREADY_EXISTS), get and list are as the definition makes
 * them. An account always keeps an admin: demoting or deleting the last one is FAILED_PRECONDITION,
 * checked in the same storage transaction as the write and under the account's last-admin lock, so that
 * concurrent calls cannot both remove "the other" admin.
 */
export class UserService extends crudService(userDefinition, ['create', 'get', 'list']) {
  private readonly storage: TransactionScopedStorage;

  /**
   * @param principalListeners told of every update and deletion of a user, inside its transaction and
   *   once it committed (identity caches forget the principal before the change is acknowledged).
   * @param deletionHooks run after a user is deleted, e.g. to revoke the user's API keys.
   */
  constructor(
    env: ResourceEnvironment,
    secrets: GatewaySecrets,
    private readonly principalListeners: readonly PrincipalChangeListener[] = [],
    private readonly deletionHooks: readonly UserDeletionHook[] = [],
  ) {
    super(env, secrets);
    this.storage = env.storage;
  }

  /**
   * PATCH a user. The body's `name` must be present and equal `name` (INVALID_ARGUMENT otherwise).
   * FAILED_PRECONDITION when it would demote the account's last admin.
   */
  async update(ctx: RequestContext, name: string, body: unknown, updateMask?: string, options: PreconditionOptions = {}): Promise<User> {
    const { accountId } = this.resources.authorizeName(ctx, name, 'update');
    assertBodyNamesUser(body, name);
    const updated = await this.underAdminLock(ctx, accountId, async (tx, txCtx) => {
      const result = await this.resources.update(txCtx, name, body, updateMask, options);
      await this.principalChanging(txCtx, name, tx);
      return result;
    });
    this.principalChanged(name);
    return updated;
  }

  /** Deletes a user. FAILED_PRECONDITION for the account's last admin; NOT_FOUND when absent. */
  async delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    const { accountId } = this.resources.authorizeName(ctx, name, 'delete');
    await this.underAdminLock(ctx, accountId, async (tx, txCtx) => {
      const user = await this.resources.getStored(txCtx, name);
      if (user.data.role === 'admin') await assertAnotherAdminExists(txCtx, this.storage.resources, name, 'delete');
      await this.resources.remove(txCtx, name, options);
      await this.principalChanging(txCtx, name, tx);
    });
    this.principalChanged(name);
    for (const hook of this.deletionHooks) await hook.userDeleted(ctx, name);
  }

  private async principalChanging(ctx: RequestContext, userName: string, tx: StorageTransaction): Promise<void> {
    for (const listener of this.principalListeners) await listener.inTransaction?.(ctx, userName, tx);
  }

  private principalChanged(userName: string): void {
    for (const listener of this.principalListeners) listener.committed(userName);
  }

  /**
   * Runs `work` in a storage transaction that first takes the account's last-admin lock; `work` makes
   * its calls with the transaction's context, so they run in it.
   */
  private underAdminLock<T>(ctx: RequestContext, accountId: string, work: TransactionWork<T>): Promise<T> {
    return this.storage.transaction(ctx, async (tx, txCtx) => {
      await tx.lock(txCtx, lastAdminLockKey(accountId));
      return work(tx, txCtx);
    });
  }
}
