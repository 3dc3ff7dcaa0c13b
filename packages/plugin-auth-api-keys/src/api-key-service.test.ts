import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../plugin-storage-memory/src/index.js';
import { ManualClock, createTestGateway, principalContext, type TestGateway } from '../../core/src/testing/test-gateway.js';
import { apiKeyManagerToken } from '../../core/src/services/core-services.js';
import { authenticatorToken, storageToken } from '../../core/src/kernel/tokens.js';
import type { RequestContext, Role } from '../../core/src/kernel/request-context.js';
import type { ApiKeyManager } from '../../core/src/ports/api-keys.js';
import type { Authenticator } from '../../core/src/ports/authenticator.js';
import type { Storage } from '../../core/src/ports/storage.js';
import { apiKeyAuth, apiKeyServiceToken } from './api-key-auth.js';
import { secretIndexName } from './api-key-service.js';
import { hashApiKey } from './api-key-format.js';
import { expectRejected as rejected } from '@berth/core/testing';

const account = 'acme';
/** A caller `userId` with `role` in `accountId`. */
function as(userId: string, role: Role, accountId = account): RequestContext {
  return { requestId: `test-${userId}`, principal: { userName: `accounts/${accountId}/users/${userId}`, accountId, role } };
}
const admin: RequestContext = as('boss', 'admin');
const system: RequestContext = { requestId: 'test-system' };
const userName = (id: string) => `accounts/${account}/users/${id}`;

let tg: TestGateway;
let keys: ApiKeyManager;
let auth: Authenticator;
let storage: Storage;
let clock: ManualClock;

async function start(options: { cacheTtlMs?: number; bootstrapApiKey?: string } = {}): Promise<void> {
  clock = new ManualClock();
  tg = await createTestGateway({
    plugins: [memoryStorage(), apiKeyAuth(options.cacheTtlMs === undefined ? {} : { cacheTtlMs: options.cacheTtlMs })],
    clock,
    ...(options.bootstrapApiKey ? { config: { bootstrapApiKey: options.bootstrapApiKey } } : {}),
  });
  keys = tg.gateway.resolve(apiKeyManagerToken);
  auth = tg.gateway.resolve(authenticatorToken);
  storage = tg.gateway.resolve(storageToken);
  for (const [id, role] of [['boss', 'admin'], ['alice', 'user'], ['bob', 'user'], ['carol', 'contributor'], ['ivan', 'inference-user']] as const) {
    await tg.services.users.create(system, account, { role, email: `${id}@acme.test` }, id);
  }
}

afterEach(async () => {
  await tg.stop();
});

describe('issuing keys', () => {
  beforeEach(() => start());

  it('binds the same service as authenticator and key manager', () => {
    const service = tg.gateway.resolve(apiKeyServiceToken);
    expect(keys).toBe(service);
    expect(auth).toBe(service);
  });

  it('shows the key once, in the create answer', async () => {
    const created = await keys.create(admin, userName('alice'), { apiKey: { displayName: 'laptop' } });
    expect(created.key).toMatch(/^berth_[A-Za-z0-9]{40}$/);
    expect(created).toMatchObject({ displayName: 'laptop', createTime: clock.now().toISOString() });
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.prefix.length).toBeLessThan(created.key.length - 20);
    const listed = await keys.list(admin, userName('alice'), {});
    expect(listed.apiKeys).toEqual([{ keyId: created.keyId, displayName: 'laptop', prefix: created.prefix, createTime: created.createTime }]);
    expect(JSON.stringify(listed)).not.toContain(created.key);
  });

  it('stores only the hash of the key', async () => {
    const created = await keys.create(admin, userName('alice'), { apiKey: {} });
    const record = await storage.resources.get(admin, `${userName('alice')}/apiKeys/${created.keyId}`);
    expect(record).toBeDefined();
    const text = JSON.stringify(record!.data);
    expect(text).not.toContain(created.key);
    expect(record!.data.keyHash).toBe(hashApiKey(created.key));
    expect(record!.data.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(record!.data.key).toBeUndefined();
    const index = await storage.resources.get(admin, secretIndexName(hashApiKey(created.key)));
    expect(index?.data).toMatchObject({ keyName: `${userName('alice')}/apiKeys/${created.keyId}`, userName: userName('alice') });
    expect(JSON.stringify(index)).not.toContain(created.key);
    expect(await storage.resources.get(admin, secretIndexName(created.key))).toBeUndefined();
  });

  it('gives every key its own secret and id', async () => {
    const a = await keys.create(admin, userName('alice'), {});
    const b = await keys.create(admin, userName('alice'), {});
    expect(a.key).not.toBe(b.key);
    expect(a.keyId).not.toBe(b.keyId);
    expect((await keys.list(admin, userName('alice'), {})).totalSize).toBe(2);
  });

  it('validates the body strictly', async () => {
    await rejected(keys.create(admin, userName('alice'), { apiKey: { displayName: 5 } }), 'INVALID_ARGUMENT');
    await rejected(keys.create(admin, userName('alice'), { apiKey: { colour: 'red' } }), 'INVALID_ARGUMENT');
    await rejected(keys.create(admin, userName('alice'), { key: 'mine' }), 'INVALID_ARGUMENT');
    await rejected(keys.create(admin, userName('alice'), { apiKey: { displayName: 'x'.repeat(64) } }), 'INVALID_ARGUMENT');
    await rejected(keys.create(admin, userName('alice'), { apiKey: { expireTime: 'tomorrow' } }), 'INVALID_ARGUMENT');
  });

  it('rejects an expireTime in the past', async () => {
    await rejected(keys.create(admin, userName('alice'), { apiKey: { expireTime: new Date(clock.now().getTime() - 1000).toISOString() } }), 'INVALID_ARGUMENT');
  });

  it('rejects keys for a user that does not exist', async () => {
    await rejected(keys.create(admin, userName('nobody'), {}), 'NOT_FOUND');
    await rejected(keys.list(admin, userName('nobody'), {}), 'NOT_FOUND');
  });

  it('rejects a malformed user name', async () => {
    await rejected(keys.create(admin, 'alice', {}), 'INVALID_ARGUMENT');
    await rejected(keys.create(admin, `accounts/${account}/models/alice`, {}), 'INVALID_ARGUMENT');
  });

  it('lists pages without secrets', async () => {
    const created = [];
    for (let i = 0; i < 5; i += 1) {
      clock.advance(1000);
      created.push(await keys.create(admin, userName('bob'), { apiKey: { displayName: `k${i}` } }));
    }
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await keys.list(admin, userName('bob'), { pageSize: 2, ...(pageToken ? { pageToken } : {}) });
      expect(page.totalSize).toBe(5);
      for (const item of page.apiKeys) {
        expect(Object.keys(item).sort()).toEqual(['createTime', 'displayName', 'keyId', 'prefix']);
        seen.push(item.keyId);
      }
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(seen).toEqual(created.map((c) => c.keyId));
  });
});

describe('authenticate', () => {
  beforeEach(() => start());

  it('resolves a valid key to its owner’s principal with the owner’s role', async () => {
    const created = await keys.create(admin, userName('carol'), {});
    expect(await auth.authenticate(system, created.key)).toEqual({
      userName: userName('carol'),
      accountId: account,
      role: 'contributor',
      email: 'carol@acme.test',
      keyId: created.keyId,
    });
  });

  it.each([['an unknown key', 'berth_not-a-real-key'], ['an empty string', ''], ['a very long string', 'x'.repeat(10_000)]])('rejects %s', async (_label, credential) => {
    expect(await auth.authenticate(system, credential)).toBeUndefined();
  });

  it('rejects a key that differs by one character', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    const last = created.key.slice(-1);
    expect(await auth.authenticate(system, created.key.slice(0, -1) + (last === 'a' ? 'b' : 'a'))).toBeUndefined();
  });

  it('rejects an expired key', async () => {
    const created = await keys.create(admin, userName('alice'), { apiKey: { expireTime: new Date(clock.now().getTime() + 3_600_000).toISOString() } });
    expect(await auth.authenticate(system, created.key)).toBeDefined();
    clock.advance(3_600_000);
    expect(await auth.authenticate(system, created.key)).toBeUndefined();
  });

  it('rejects an expired key even when it was verified just before it expired', async () => {
    const created = await keys.create(admin, userName('alice'), { apiKey: { expireTime: new Date(clock.now().getTime() + 500).toISOString() } });
    expect(await auth.authenticate(system, created.key)).toBeDefined();
    clock.advance(600);
    expect(await auth.authenticate(system, created.key)).toBeUndefined();
  });

  it('rejects a deleted key at once, even when it was verified just before', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    expect(await auth.authenticate(system, created.key)).toBeDefined();
    await keys.delete(admin, userName('alice'), created.keyId);
    expect(await auth.authenticate(system, created.key)).toBeUndefined();
    expect((await keys.list(admin, userName('alice'), {})).totalSize).toBe(0);
    expect(await storage.resources.get(admin, secretIndexName(hashApiKey(created.key)))).toBeUndefined();
    await rejected(keys.delete(admin, userName('alice'), created.keyId), 'NOT_FOUND');
  });

  it('rejects the key of a deleted user', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    await tg.services.users.delete(admin, userName('alice'));
    expect(await auth.authenticate(system, created.key)).toBeUndefined();
  });

  it('rejects the key of a deleted user once the cache expires', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    expect(await auth.authenticate(system, created.key)).toBeDefined();
    await tg.services.users.delete(admin, userName('alice'));
    clock.advance(2001);
    expect(await auth.authenticate(system, created.key)).toBeUndefined();
  });

  it('does not let a deleted user’s key act for a new user of the same id', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    await tg.services.users.delete(admin, userName('alice'));
    clock.advance(5000);
    await tg.services.users.create(admin, account, { role: 'admin', email: 'new-alice@acme.test' }, 'alice');
    expect(await auth.authenticate(system, created.key)).toBeUndefined();
  });

  it('forgets a principal at once when its role changes, even when it was verified just before', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    expect((await auth.authenticate(system, created.key))?.role).toBe('user');
    expect(auth.authenticateCached?.(created.key)?.role).toBe('user');
    await tg.services.users.update(admin, userName('alice'), { name: userName('alice'), role: 'inference-user' }, 'role');
    expect(auth.authenticateCached?.(created.key)).toBeUndefined();
    expect((await auth.authenticate(system, created.key))?.role).toBe('inference-user');
  });

  it('forgets a principal at once when its email changes', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    expect((await auth.authenticate(system, created.key))?.email).toBe('alice@acme.test');
    await tg.services.users.update(admin, userName('alice'), { name: userName('alice'), email: 'alice@new.test' }, 'email');
    expect((await auth.authenticate(system, created.key))?.email).toBe('alice@new.test');
  });

  it('forgets every key of a deleted user at once', async () => {
    const first = await keys.create(admin, userName('alice'), {});
    const second = await keys.create(admin, userName('alice'), {});
    await auth.authenticate(system, first.key);
    await auth.authenticate(system, second.key);
    await tg.services.users.delete(admin, userName('alice'));
    expect(auth.authenticateCached?.(first.key)).toBeUndefined();
    expect(auth.authenticateCached?.(second.key)).toBeUndefined();
    expect(await auth.authenticate(system, second.key)).toBeUndefined();
  });

  it('follows a role change of the owner once the cache expires', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    expect((await auth.authenticate(system, created.key))?.role).toBe('user');
    await tg.services.users.update(admin, userName('alice'), { name: userName('alice'), role: 'inference-user' }, 'role');
    clock.advance(2001);
    expect((await auth.authenticate(system, created.key))?.role).toBe('inference-user');
  });
});

describe('the synchronous cached answer (authenticateCached)', () => {
  beforeEach(() => start());

  it('knows a key only once authenticate verified it, and answers the same principal', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    expect(auth.authenticateCached?.(created.key)).toBeUndefined();
    const principal = await auth.authenticate(system, created.key);
    expect(principal?.userName).toBe(userName('alice'));
    expect(auth.authenticateCached?.(created.key)).toEqual(principal);
    expect(auth.authenticateCached?.(`${created.key}x`)).toBeUndefined();
  });

  it('forgets a deleted key at once, and any key once the cache or the key expires', async () => {
    const deleted = await keys.create(admin, userName('alice'), {});
    await auth.authenticate(system, deleted.key);
    await keys.delete(admin, userName('alice'), deleted.keyId);
    expect(auth.authenticateCached?.(deleted.key)).toBeUndefined();

    const expiring = await keys.create(admin, userName('alice'), { apiKey: { expireTime: new Date(clock.now().getTime() + 500).toISOString() } });
    const lasting = await keys.create(admin, userName('alice'), {});
    await auth.authenticate(system, expiring.key);
    await auth.authenticate(system, lasting.key);
    clock.advance(600);
    expect(auth.authenticateCached?.(expiring.key)).toBeUndefined();
    expect(auth.authenticateCached?.(lasting.key)).toBeDefined();
    clock.advance(1500);
    expect(auth.authenticateCached?.(lasting.key)).toBeUndefined();
  });

  it('never answers for an unknown key, even after authenticate refused it', async () => {
    expect(await auth.authenticate(system, 'berth_unknown')).toBeUndefined();
    expect(auth.authenticateCached?.('berth_unknown')).toBeUndefined();
  });
});

describe('authenticate without a cache', () => {
  beforeEach(() => start({ cacheTtlMs: 0 }));

  it('has no synchronous answer', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    expect(await auth.authenticate(system, created.key)).toBeDefined();
    expect(auth.authenticateCached?.(created.key)).toBeUndefined();
  });

  it('rejects the key of a deleted user at once', async () => {
    const created = await keys.create(admin, userName('alice'), {});
    expect(await auth.authenticate(system, created.key)).toBeDefined();
    await tg.services.users.delete(admin, userName('alice'));
    expect(await auth.authenticate(system, created.key)).toBeUndefined();
  });
});

describe('bootstrap key', () => {
  beforeEach(() => start({ bootstrapApiKey: 'bootstrap-secret-key' }));

  it('authenticates as the bootstrap admin and is stored only as a hash', async () => {
    const principal = await auth.authenticate(system, 'bootstrap-secret-key');
    expect(principal).toMatchObject({ userName: 'accounts/my-account/users/admin', accountId: 'my-account', role: 'admin' });
    const listed = await keys.list(system, 'accounts/my-account/users/admin', {});
    expect(listed.totalSize).toBe(1);
    expect(JSON.stringify(listed)).not.toContain('bootstrap-secret-key');
  });
});

describe('role rules', () => {
  beforeEach(() => start());

  it('admin manages anyone’s keys', async () => {
    const key = await keys.create(as('boss', 'admin'), userName('alice'), {});
    await expect(keys.list(as('boss', 'admin'), userName('alice'), {})).resolves.toMatchObject({ totalSize: 1 });
    await keys.delete(as('boss', 'admin'), userName('alice'), key.keyId);
  });

  it('user manages its own keys only', async () => {
    const alice = as('alice', 'user');
    const own = await keys.create(alice, userName('alice'), {});
    await expect(keys.list(alice, userName('alice'), {})).resolves.toMatchObject({ totalSize: 1 });
    await keys.delete(alice, userName('alice'), own.keyId);

    const bobs = await keys.create(admin, userName('bob'), {});
    await rejected(keys.create(alice, userName('bob'), {}), 'PERMISSION_DENIED');
    await rejected(keys.list(alice, userName('bob'), {}), 'PERMISSION_DENIED');
    await rejected(keys.delete(alice, userName('bob'), bobs.keyId), 'PERMISSION_DENIED');
    expect(await auth.authenticate(system, bobs.key)).toBeDefined();
  });

  it('contributor creates and lists its own keys but deletes none', async () => {
    const carol = as('carol', 'contributor');
    const own = await keys.create(carol, userName('carol'), {});
    await expect(keys.list(carol, userName('carol'), {})).resolves.toMatchObject({ totalSize: 1 });
    await rejected(keys.delete(carol, userName('carol'), own.keyId), 'PERMISSION_DENIED');
    await rejected(keys.create(carol, userName('alice'), {}), 'PERMISSION_DENIED');
    await rejected(keys.list(carol, userName('alice'), {}), 'PERMISSION_DENIED');
  });

  it('inference-user manages no keys, not even its own', async () => {
    const ivan = as('ivan', 'inference-user');
    await rejected(keys.create(ivan, userName('ivan'), {}), 'PERMISSION_DENIED');
    await rejected(keys.list(ivan, userName('ivan'), {}), 'PERMISSION_DENIED');
  });

  it('another account is denied identically whether the user exists or not', async () => {
    const outsider = principalContext('other', 'admin');
    const existing = await rejected(keys.list(outsider, userName('alice'), {}), 'PERMISSION_DENIED');
    const missing = await rejected(keys.list(outsider, userName('nobody'), {}), 'PERMISSION_DENIED');
    expect(existing.message).toBe(missing.message);
    await rejected(keys.create(outsider, userName('alice'), {}), 'PERMISSION_DENIED');
  });

  it('a key made by an admin for a user acts with the user’s role, not the admin’s', async () => {
    const key = await keys.create(admin, userName('ivan'), {});
    expect((await auth.authenticate(system, key.key))?.role).toBe('inference-user');
  });
});
