import { afterEach, describe, expect, it } from 'vitest';
import {
  apiKeyManagerToken, authenticatorToken, coreServicesToken, storageToken, unavailable,
  type ApiKeyManager, type Gateway, type Authenticator, type RequestContext, type ResourceStore, type Storage,
} from '@berth/core';
import { ManualClock, MemoryStorage, createTestGateway, expectRejected as rejected, type TestGateway } from '@berth/core/testing';
import { apiKeyAuth, apiKeyServiceToken, principalChangeFeedToken } from './api-key-auth.js';
import { secretIndexName } from './api-key-service.js';
import { hashApiKey } from './api-key-format.js';
import { sharedStorage, twoApiKeyInstances } from './test-fixtures.js';

/**
 * What is particular to this plugin: key format, hashes at rest, the secret index, the cache's TTL and
 * change feed, bootstrap. The behaviour every authenticator and key manager owes is in the contract
 * suites (contract.test.ts, contract.pg.test.ts).
 */
const account = 'acme';
const admin: RequestContext = { requestId: 'test-boss', principal: { userName: `accounts/${account}/users/boss`, accountId: account, role: 'admin' } };
const system: RequestContext = { requestId: 'test-system' };
const userName = (id: string) => `accounts/${account}/users/${id}`;

let tg: TestGateway | undefined;
let keys: ApiKeyManager;
let auth: Authenticator;
let storage: Storage;
let clock: ManualClock;

async function start(options: { cacheTtlMs?: number; bootstrapApiKey?: string; storage?: Storage } = {}): Promise<void> {
  clock = new ManualClock();
  tg = await createTestGateway({
    plugins: [sharedStorage(options.storage ?? new MemoryStorage()), apiKeyAuth(options.cacheTtlMs === undefined ? {} : { cacheTtlMs: options.cacheTtlMs })],
    clock,
    ...(options.bootstrapApiKey ? { config: { bootstrapApiKey: options.bootstrapApiKey } } : {}),
  });
  keys = tg.gateway.resolve(apiKeyManagerToken);
  auth = tg.gateway.resolve(authenticatorToken);
  storage = tg.gateway.resolve(storageToken);
  for (const [id, role] of [['boss', 'admin'], ['alice', 'user']] as const) {
    await tg.services.users.create(system, account, { role, email: `${id}@acme.test` }, id);
  }
}

afterEach(async () => {
  await tg?.stop();
  tg = undefined;
});

describe('keys at rest', () => {
  it('binds the same service as authenticator and key manager', async () => {
    await start();
    const service = tg!.gateway.resolve(apiKeyServiceToken);
    expect(keys).toBe(service);
    expect(auth).toBe(service);
  });

  it('issues `berth_` and 40 characters, and stores only the hash, in the key record and the secret index', async () => {
    await start();
    const created = await keys.create(admin, userName('alice'), {});
    expect(created.key).toMatch(/^berth_[A-Za-z0-9]{40}$/);
    const record = await storage.resources.get(admin, `${userName('alice')}/apiKeys/${created.keyId}`);
    expect(JSON.stringify(record!.data)).not.toContain(created.key);
    expect(record!.data.keyHash).toBe(hashApiKey(created.key));
    expect(record!.data.keyHash).toMatch(/^[0-9a-f]{64}$/);
    const index = await storage.resources.get(admin, secretIndexName(hashApiKey(created.key)));
    expect(index?.data).toMatchObject({ keyName: record!.name, userName: userName('alice') });
    expect(JSON.stringify(index)).not.toContain(created.key);
    await keys.delete(admin, userName('alice'), created.keyId);
    expect(await storage.resources.get(admin, secretIndexName(hashApiKey(created.key)))).toBeUndefined();
  });

  it('writes the key and its secret index together: a failed create leaves no usable key and frees the secret', async () => {
    const inner = new MemoryStorage();
    let failKeyRecords = false;
    const guarded = (store: ResourceStore): ResourceStore => ({
      create: (ctx, name, data) => (failKeyRecords && name.includes('/apiKeys/') ? Promise.reject(unavailable('injected failure')) : store.create(ctx, name, data)),
      get: (ctx, name) => store.get(ctx, name),
      update: (ctx, name, data, etag) => store.update(ctx, name, data, etag),
      delete: (ctx, name, etag) => store.delete(ctx, name, etag),
      list: (ctx, query) => store.list(ctx, query),
    });
    await start({
      storage: {
        resources: guarded(inner.resources), blobs: inner.blobs, queue: inner.queue, outbox: inner.outbox, kv: inner.kv,
        transaction: (ctx, work) => inner.transaction(ctx, (tx) => work({ ...tx, lock: (c, key) => tx.lock(c, key), resources: { ...guarded(tx.resources), getForUpdate: (c, name) => tx.resources.getForUpdate(c, name) } })),
      },
    });
    failKeyRecords = true;
    await rejected(keys.create(admin, userName('alice'), {}, { secret: 'half-written-secret' }), 'UNAVAILABLE');
    failKeyRecords = false;
    expect(await auth.authenticate(system, 'half-written-secret')).toBeUndefined();
    await keys.create(admin, userName('alice'), {}, { secret: 'half-written-secret' });
    expect((await auth.authenticate(system, 'half-written-secret'))?.userName).toBe(userName('alice'));
  });

  it('keeps honouring keys indexed in the key-value store before the secret index, and keeps their secrets unique', async () => {
    await start();
    const hash = hashApiKey('legacy-secret-key');
    const name = `${userName('alice')}/apiKeys/legacy`;
    const alice = await storage.resources.get(system, userName('alice'));
    await storage.resources.create(system, name, { name, keyId: 'legacy', prefix: 'legacy-s', createTime: clock.now().toISOString(), keyHash: hash });
    await storage.kv.set(system, `berth:apikey:${hash}`, { name, userName: userName('alice'), userCreateTime: String(alice!.data.createTime) });
    expect(await auth.authenticate(system, 'legacy-secret-key')).toMatchObject({ userName: userName('alice'), keyId: 'legacy' });
    await rejected(keys.create(admin, userName('boss'), {}, { secret: 'legacy-secret-key' }));
    await keys.delete(admin, userName('alice'), 'legacy');
    expect(await storage.kv.get(system, `berth:apikey:${hash}`)).toBeUndefined();
    clock.advance(3000);
    expect(await auth.authenticate(system, 'legacy-secret-key')).toBeUndefined();
  });
});

describe('the identity cache', () => {
  it('answers a verified key without I/O until the TTL ends', async () => {
    await start();
    const created = await keys.create(admin, userName('alice'), {});
    expect(auth.authenticateCached?.(created.key)).toBeUndefined();
    const principal = await auth.authenticate(system, created.key);
    expect(auth.authenticateCached?.(created.key)).toEqual(principal);
    clock.advance(2001);
    expect(auth.authenticateCached?.(created.key)).toBeUndefined();
  });

  it('never answers synchronously for a refused key', async () => {
    await start();
    expect(await auth.authenticate(system, 'berth_unknown')).toBeUndefined();
    expect(auth.authenticateCached?.('berth_unknown')).toBeUndefined();
  });

  it('forgets a remembered refusal once the secret is issued', async () => {
    await start();
    expect(await auth.authenticate(system, 'issued-after-refusal')).toBeUndefined();
    await keys.create(admin, userName('alice'), {}, { secret: 'issued-after-refusal' });
    expect(await auth.authenticate(system, 'issued-after-refusal')).toBeDefined();
  });

  it('is off with cacheTtlMs 0', async () => {
    await start({ cacheTtlMs: 0 });
    const created = await keys.create(admin, userName('alice'), {});
    expect(await auth.authenticate(system, created.key)).toBeDefined();
    expect(auth.authenticateCached?.(created.key)).toBeUndefined();
    await tg!.services.users.update(admin, userName('alice'), { name: userName('alice'), role: 'contributor' }, 'role');
    expect((await auth.authenticate(system, created.key))?.role).toBe('contributor');
  });

  it('is told by the change feed what another instance changed, without waiting for the bound', async () => {
    const shared = new MemoryStorage();
    const pair = await twoApiKeyInstances(() => sharedStorage(shared));
    try {
      const [a, b] = pair.instances as [Gateway, Gateway];
      const users = a.resolve(coreServicesToken).users;
      await users.create(system, account, { role: 'admin', email: 'deputy@acme.test' }, 'deputy');
      await users.create(system, account, { role: 'admin', email: 'keeper@acme.test' }, 'keeper');
      const key = (await a.resolve(apiKeyManagerToken).create(system, userName('deputy'), {})).key;
      const onB = b.resolve(authenticatorToken);
      expect((await onB.authenticate(system, key))?.role).toBe('admin');
      expect(onB.authenticateCached?.(key)?.role).toBe('admin');
      await users.update(system, userName('deputy'), { name: userName('deputy'), role: 'user' }, 'role');
      await b.resolve(principalChangeFeedToken).poll();
      expect(onB.authenticateCached?.(key)).toBeUndefined();
      expect((await onB.authenticate(system, key))?.role).toBe('user');
    } finally {
      await pair.cleanup();
    }
  });
});

describe('bootstrap key', () => {
  it('authenticates as the bootstrap admin and is stored only as a hash', async () => {
    await start({ bootstrapApiKey: 'bootstrap-secret-key' });
    const principal = await auth.authenticate(system, 'bootstrap-secret-key');
    expect(principal).toMatchObject({ userName: 'accounts/my-account/users/admin', accountId: 'my-account', role: 'admin' });
    const listed = await keys.list(system, 'accounts/my-account/users/admin', {});
    expect(listed.totalSize).toBe(1);
    expect(JSON.stringify(listed)).not.toContain('bootstrap-secret-key');
  });
});

describe('options', () => {
  it('refuses a stale bound not above the feed interval', () => {
    expect(() => apiKeyAuth({ staleBoundMs: 100, changeFeedIntervalMs: 100 })).toThrow(/staleBoundMs/);
  });
});
