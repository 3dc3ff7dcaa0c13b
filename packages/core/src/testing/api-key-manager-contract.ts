import { describe, expect, it } from 'vitest';
import type { Gateway } from '../kernel/gateway.js';
import { systemContext, type RequestContext, type Role } from '../kernel/request-context.js';
import { apiKeyManagerToken, authenticatorToken } from '../kernel/tokens.js';
import type { ApiKeyManager } from '../ports/api-keys.js';
import type { Authenticator } from '../ports/authenticator.js';
import { coreServicesToken } from '../services/tokens.js';
import { expectRejected as rejected } from './assertions.js';
import { freshContractAccount, useAuthUnderTest, type AuthUnderTest } from './authenticator-contract.js';

const system = systemContext('api-key-manager-contract');

const freshAccount = (): string => freshContractAccount('keys-contract');

/** A caller `userId` with `role` in `accountId`. */
function as(accountId: string, userId: string, role: Role): RequestContext {
  return { requestId: `contract-${userId}`, principal: { userName: `accounts/${accountId}/users/${userId}`, accountId, role } };
}

/**
 * The contract of an {@link ApiKeyManager} (bound with an Authenticator that accepts its keys): keys shown
 * once and never listed, strict bodies, paging, the role matrix, revocation, expiry, and unique secrets
 * — a provided secret already in use is refused, however many creates race for it, on every instance.
 *
 * ```ts
 * describeApiKeyManagerContract('my keys on PostgreSQL', async () => ({ instances: [a, b], clock, cleanup }));
 * ```
 * `factory` runs once for the suite (see {@link AuthUnderTest}); each test works in an account of its own.
 */
export function describeApiKeyManagerContract(name: string, factory: () => Promise<AuthUnderTest>): void {
  describe(`ApiKeyManager contract: ${name}`, () => {
    const current = useAuthUnderTest(factory, 'API-key manager contract');
    const gateway = (index = 0): Gateway => current().instances[index] ?? current().instances[0]!;
    const keys = (index = 0): ApiKeyManager => gateway(index).resolve(apiKeyManagerToken);
    const auth = (): Authenticator => gateway().resolve(authenticatorToken);

    /** A fresh account with users boss (admin), alice and bob (user), carol (contributor), ivan (inference-user). */
    async function account(): Promise<{ id: string; user: (userId: string) => string; admin: RequestContext }> {
      const id = freshAccount();
      const users = gateway().resolve(coreServicesToken).users;
      for (const [userId, role] of [['boss', 'admin'], ['alice', 'user'], ['bob', 'user'], ['carol', 'contributor'], ['ivan', 'inference-user']] as const) {
        await users.create(system, id, { role, email: `${userId}@contract.test` }, userId);
      }
      return { id, user: (userId) => `accounts/${id}/users/${userId}`, admin: as(id, 'boss', 'admin') };
    }

    it('shows the secret once, in the create answer, and never in a list', async () => {
      const { user, admin } = await account();
      const created = await keys().create(admin, user('alice'), { apiKey: { displayName: 'laptop' } });
      expect(created.key.length).toBeGreaterThanOrEqual(20);
      expect(created).toMatchObject({ displayName: 'laptop', createTime: current().clock.now().toISOString() });
      expect(created.key.startsWith(created.prefix)).toBe(true);
      expect(created.prefix.length).toBeLessThan(created.key.length - 8);
      const listed = await keys().list(admin, user('alice'), {});
      expect(listed.apiKeys).toEqual([{ keyId: created.keyId, displayName: 'laptop', prefix: created.prefix, createTime: created.createTime, etag: created.etag }]);
      expect(JSON.stringify(listed)).not.toContain(created.key);
      expect((await auth().authenticate(system, created.key))?.userName).toBe(user('alice'));
    });

    it('gives every key its own secret and id', async () => {
      const { user, admin } = await account();
      const a = await keys().create(admin, user('alice'), {});
      const b = await keys().create(admin, user('alice'), {});
      expect(a.key).not.toBe(b.key);
      expect(a.keyId).not.toBe(b.keyId);
      expect((await keys().list(admin, user('alice'), {})).totalSize).toBe(2);
    });

    it('validates the body strictly, and refuses an expireTime in the past', async () => {
      const { user, admin } = await account();
      await rejected(keys().create(admin, user('alice'), { apiKey: { displayName: 5 } }));
      await rejected(keys().create(admin, user('alice'), { apiKey: { colour: 'red' } }));
      await rejected(keys().create(admin, user('alice'), { key: 'mine' }));
      await rejected(keys().create(admin, user('alice'), { apiKey: { displayName: 'x'.repeat(64) } }));
      await rejected(keys().create(admin, user('alice'), { apiKey: { expireTime: 'tomorrow' } }));
      const past = new Date(current().clock.now().getTime() - 1000).toISOString();
      await rejected(keys().create(admin, user('alice'), { apiKey: { expireTime: past } }));
      expect((await keys().list(admin, user('alice'), {})).totalSize).toBe(0);
    });

    it('answers NOT_FOUND for an unknown user or key, INVALID_ARGUMENT for a malformed user name', async () => {
      const { id, user, admin } = await account();
      await rejected(keys().create(admin, user('nobody'), {}), 'NOT_FOUND');
      await rejected(keys().list(admin, user('nobody'), {}), 'NOT_FOUND');
      await rejected(keys().delete(admin, user('alice'), 'no-such-key'), 'NOT_FOUND');
      await rejected(keys().create(admin, 'alice', {}));
      await rejected(keys().create(admin, `accounts/${id}/models/alice`, {}));
    });

    it('lists in pages, oldest first', async () => {
      const { user, admin } = await account();
      const created = [];
      for (let i = 0; i < 5; i += 1) {
        current().clock.advance(1000);
        created.push(await keys().create(admin, user('bob'), { apiKey: { displayName: `k${i}` } }));
      }
      const seen: string[] = [];
      let pageToken: string | undefined;
      do {
        const page = await keys().list(admin, user('bob'), { pageSize: 2, ...(pageToken ? { pageToken } : {}) });
        expect(page.totalSize).toBe(5);
        expect(page.apiKeys.length).toBeLessThanOrEqual(2);
        seen.push(...page.apiKeys.map((k) => k.keyId));
        pageToken = page.nextPageToken;
      } while (pageToken);
      expect(seen).toEqual(created.map((c) => c.keyId));
    });

    it('revokes a key at once: it stops authenticating and is no longer listed', async () => {
      const { user, admin } = await account();
      const created = await keys().create(admin, user('alice'), {});
      expect(await auth().authenticate(system, created.key)).toBeDefined();
      await keys().delete(admin, user('alice'), created.keyId);
      expect(auth().authenticateCached?.(created.key)).toBeUndefined();
      expect(await auth().authenticate(system, created.key)).toBeUndefined();
      expect((await keys().list(admin, user('alice'), {})).totalSize).toBe(0);
      await rejected(keys().delete(admin, user('alice'), created.keyId), 'NOT_FOUND');
    });

    it('gives every key an etag (AIP-154); delete with a stale one is ABORTED and keeps the key, with the current one or * it deletes', async () => {
      const { user, admin } = await account();
      const created = await keys().create(admin, user('alice'), {});
      expect(typeof created.etag).toBe('string');
      expect(created.etag.length).toBeGreaterThan(0);
      expect((await keys().list(admin, user('alice'), {})).apiKeys.map((k) => k.etag)).toEqual([created.etag]);
      const other = await keys().create(admin, user('alice'), {});
      expect(other.etag).not.toBe(created.etag);
      for (const stale of [other.etag, '999999999999', 'not-a-version']) {
        await rejected(keys().delete(admin, user('alice'), created.keyId, { etag: stale }), 'ABORTED');
      }
      expect((await auth().authenticate(system, created.key))?.userName).toBe(user('alice'));
      expect((await keys().list(admin, user('alice'), {})).totalSize).toBe(2);
      await keys().delete(admin, user('alice'), created.keyId, { etag: created.etag });
      await keys().delete(admin, user('alice'), other.keyId, { etag: '*' });
      expect(await auth().authenticate(system, created.key)).toBeUndefined();
      expect((await keys().list(admin, user('alice'), {})).totalSize).toBe(0);
      await rejected(keys().delete(admin, user('alice'), created.keyId, { etag: created.etag }), 'NOT_FOUND');
    });

    it('revokes every key of a user with revokeAll', async () => {
      const { user, admin } = await account();
      const issued = [await keys().create(admin, user('alice'), {}), await keys().create(admin, user('alice'), {})];
      const bobs = await keys().create(admin, user('bob'), {});
      await keys().revokeAll(system, user('alice'));
      for (const key of issued) expect(await auth().authenticate(system, key.key)).toBeUndefined();
      expect((await keys().list(admin, user('alice'), {})).totalSize).toBe(0);
      expect(await auth().authenticate(system, bobs.key)).toBeDefined();
    });

    it('refuses a key once its expireTime has passed, even when it was verified just before', async () => {
      const { user, admin } = await account();
      const created = await keys().create(admin, user('alice'), { apiKey: { expireTime: new Date(current().clock.now().getTime() + 500).toISOString() } });
      expect(created.expireTime).toBeDefined();
      expect(await auth().authenticate(system, created.key)).toBeDefined();
      current().clock.advance(600);
      expect(auth().authenticateCached?.(created.key)).toBeUndefined();
      expect(await auth().authenticate(system, created.key)).toBeUndefined();
    });

    it('gives a key its owner’s role, not its issuer’s', async () => {
      const { user, admin } = await account();
      const key = await keys().create(admin, user('ivan'), {});
      expect((await auth().authenticate(system, key.key))?.role).toBe('inference-user');
    });

    describe('role rules', () => {
      it('admin manages anyone’s keys of its account', async () => {
        const { user, admin } = await account();
        const key = await keys().create(admin, user('alice'), {});
        await expect(keys().list(admin, user('alice'), {})).resolves.toMatchObject({ totalSize: 1 });
        await keys().delete(admin, user('alice'), key.keyId);
      });

      it('user manages its own keys only', async () => {
        const { id, user, admin } = await account();
        const alice = as(id, 'alice', 'user');
        const own = await keys().create(alice, user('alice'), {});
        await expect(keys().list(alice, user('alice'), {})).resolves.toMatchObject({ totalSize: 1 });
        await keys().delete(alice, user('alice'), own.keyId);
        const bobs = await keys().create(admin, user('bob'), {});
        await rejected(keys().create(alice, user('bob'), {}), 'PERMISSION_DENIED');
        await rejected(keys().list(alice, user('bob'), {}), 'PERMISSION_DENIED');
        await rejected(keys().delete(alice, user('bob'), bobs.keyId), 'PERMISSION_DENIED');
        expect(await auth().authenticate(system, bobs.key)).toBeDefined();
      });

      it('contributor creates and lists its own keys but deletes none', async () => {
        const { id, user } = await account();
        const carol = as(id, 'carol', 'contributor');
        const own = await keys().create(carol, user('carol'), {});
        await expect(keys().list(carol, user('carol'), {})).resolves.toMatchObject({ totalSize: 1 });
        await rejected(keys().delete(carol, user('carol'), own.keyId), 'PERMISSION_DENIED');
        await rejected(keys().create(carol, user('alice'), {}), 'PERMISSION_DENIED');
        await rejected(keys().list(carol, user('alice'), {}), 'PERMISSION_DENIED');
      });

      it('inference-user manages no keys, not even its own', async () => {
        const { id, user } = await account();
        const ivan = as(id, 'ivan', 'inference-user');
        await rejected(keys().create(ivan, user('ivan'), {}), 'PERMISSION_DENIED');
        await rejected(keys().list(ivan, user('ivan'), {}), 'PERMISSION_DENIED');
      });

      it('another account is denied identically whether the user exists or not', async () => {
        const { user } = await account();
        const outsider = as(freshAccount(), 'boss', 'admin');
        const existing = await rejected(keys().list(outsider, user('alice'), {}), 'PERMISSION_DENIED');
        const missing = await rejected(keys().list(outsider, user('nobody'), {}), 'PERMISSION_DENIED');
        expect(existing.message).toBe(missing.message);
        await rejected(keys().create(outsider, user('alice'), {}), 'PERMISSION_DENIED');
      });
    });

    describe('unique secrets', () => {
      it('refuses a provided secret shorter than 8 characters', async () => {
        const { user } = await account();
        await rejected(keys().create(system, user('alice'), {}, { secret: 'short' }));
      });

      it('refuses a provided secret already in use, by the same or another user', async () => {
        const { user } = await account();
        const secret = `contract-secret-${Math.random().toString(36).slice(2)}`;
        await keys().create(system, user('alice'), {}, { secret });
        await rejected(keys().create(system, user('alice'), {}, { secret }));
        await rejected(keys().create(system, user('bob'), {}, { secret }));
        expect((await auth().authenticate(system, secret))?.userName).toBe(user('alice'));
      });

      it('lets exactly one of many racing creates with one secret win, on every instance', async () => {
        const { user } = await account();
        const secret = `contract-race-${Math.random().toString(36).slice(2)}`;
        const owners = ['alice', 'bob', 'carol', 'boss'];
        const results = await Promise.allSettled(
          Array.from({ length: 12 }, (_, i) => keys(i % current().instances.length).create(system, user(owners[i % owners.length]!), {}, { secret })),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const result of results) {
          if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'INVALID_ARGUMENT' });
        }
        let listed = 0;
        for (const owner of owners) listed += (await keys().list(system, user(owner), {})).totalSize;
        expect(listed).toBe(1);
        const winner = (await auth().authenticate(system, secret))?.userName;
        expect(owners.map(user)).toContain(winner);
        // Revoking the winner frees the secret for a new key.
        const ownerId = winner!.split('/').pop()!;
        const winnerKey = (won[0] as PromiseFulfilledResult<{ keyId: string }>).value.keyId;
        await keys().delete(system, user(ownerId), winnerKey);
        await keys().create(system, user('alice'), {}, { secret });
        expect((await auth().authenticate(system, secret))?.userName).toBe(user('alice'));
      });
    });
  });
}
