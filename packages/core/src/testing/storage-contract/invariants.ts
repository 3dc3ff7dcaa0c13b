import { describe, expect, it } from 'vitest';
import { Code } from '../../errors/code.js';
import { isGatewayError } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { systemClock } from '../../ports/clock.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import type { StorageTransaction } from '../../ports/storage.js';
import { ResourceEnvironment } from '../../resources/common/resource-environment.js';
import { GatewaySecrets } from '../../resources/common/secrets.js';
import { UserService } from '../../resources/users/user-service.js';
import { ctx, uid, type StorageGetter } from './support.js';

const WRITERS = 8;
const ROUNDS = 6;

/** Increments a counter resource read through `read` (a read-modify-write with the etag it read). */
async function increment(tx: StorageTransaction, name: string, read: (tx: StorageTransaction) => Promise<unknown>): Promise<void> {
  await read(tx);
  const current = await tx.resources.get(ctx, name);
  if (current === undefined) throw new Error(`${name} vanished`);
  await tx.resources.update(ctx, name, { name, n: Number(current.data.n) + 1 }, current.etag);
}

const adminOf = (accountId: string, userId: string): RequestContext => ({
  requestId: uid('r'),
  principal: { userName: `accounts/${accountId}/users/${userId}`, accountId, role: 'admin', email: `${userId}@example.com` },
});

/**
 * Locks for invariants that span records (see `StorageTransaction`): `lock` and `getForUpdate`
 * serialize read-check-write transactions, and the last-admin rule holds when two admins demote or
 * delete each other at once, round after round.
 */
export function invariantTests(storage: StorageGetter): void {
  describe('invariant locks', () => {
    it('tx.lock runs read-modify-write transactions on one key one after another: none conflicts', async () => {
      const name = `accounts/${uid('a')}/models/${uid('counter')}`;
      await storage().resources.create(ctx, name, { name, n: 0 });
      const key = `contract:${name}`;
      const results = await Promise.allSettled(
        Array.from({ length: WRITERS }, () => storage().transaction(ctx, (tx) => increment(tx, name, (t) => t.lock(ctx, key)))),
      );
      expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      expect((await storage().resources.get(ctx, name))?.data.n).toBe(WRITERS);
    });

    it('tx.lock may be taken twice by one transaction, and is released on rollback', async () => {
      const key = `contract:${uid('k')}`;
      await expect(
        storage().transaction(ctx, async (tx) => {
          await tx.lock(ctx, key);
          await tx.lock(ctx, key);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await storage().transaction(ctx, (tx) => tx.lock(ctx, key));
    });

    it('tx.resources.getForUpdate makes concurrent read-modify-writes of a resource wait: none conflicts', async () => {
      const name = `accounts/${uid('a')}/models/${uid('counter')}`;
      await storage().resources.create(ctx, name, { name, n: 0 });
      const results = await Promise.allSettled(
        Array.from({ length: WRITERS }, () => storage().transaction(ctx, (tx) => increment(tx, name, (t) => t.resources.getForUpdate(ctx, name)))),
      );
      expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      expect((await storage().resources.get(ctx, name))?.data.n).toBe(WRITERS);
      expect(await storage().transaction(ctx, (tx) => tx.resources.getForUpdate(ctx, `${name}-missing`))).toBeUndefined();
    });
  });

  describe('last-admin invariant under races', () => {
    type Action = 'demote' | 'delete';
    const pairs: Array<[Action, Action]> = [['demote', 'demote'], ['delete', 'delete'], ['demote', 'delete']];

    it.each(pairs)('two admins that %s and %s each other at once: exactly one wins, one admin is left (many rounds)', async (first, second) => {
      const secrets = new GatewaySecrets('contract-secret');
      await secrets.load(ctx, storage().kv);
      const users = new UserService(new ResourceEnvironment(storage(), systemClock, randomIdGenerator), secrets);
      const act = (action: Action, actor: string, target: string, accountId: string): Promise<unknown> => {
        const name = `accounts/${accountId}/users/${target}`;
        const caller = adminOf(accountId, actor);
        return action === 'demote' ? users.update(caller, name, { name, role: 'user' }) : users.delete(caller, name);
      };
      for (let round = 0; round < ROUNDS; round++) {
        const accountId = uid('acct');
        const system = adminOf(accountId, 'system');
        await users.create(system, accountId, { role: 'admin' }, 'ann');
        await users.create(system, accountId, { role: 'admin' }, 'bob');
        const results = await Promise.allSettled([act(first, 'ann', 'bob', accountId), act(second, 'bob', 'ann', accountId)]);
        const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
        expect(failures, `round ${round}`).toHaveLength(1);
        const failure = failures[0];
        expect(isGatewayError(failure) ? [failure.code, failure.reason] : failure, `round ${round}`).toEqual([Code.FAILED_PRECONDITION, 'LAST_ADMIN']);
        const admins = await users.list(system, accountId, { filter: 'role = admin' });
        expect(admins.totalSize, `round ${round}`).toBe(1);
      }
    });
  });
}
