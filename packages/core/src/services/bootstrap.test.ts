import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../testing/index.js';
import { staticTokenAuth } from '../testing/test-gateway.js';
import type { ApiKeyManager } from '../ports/api-keys.js';
import { createGateway } from './create-gateway.js';
import { definePlugin } from '../kernel/plugin.js';
import { systemContext } from '../kernel/request-context.js';
import { apiKeyManagerToken, storageToken } from '../kernel/tokens.js';
import { coreServicesToken } from './tokens.js';

/** The keys core asked for, across every instance of a test (like a shared key store). */
interface KeyRequest {
  readonly userName: string;
  readonly secret?: string;
}

/** An API-key manager that records the keys it is asked to create. */
function recordingApiKeys(requests: KeyRequest[]): ApiKeyManager {
  return {
    async create(_ctx, userName, _body, options = {}) {
      requests.push({ userName, ...(options.secret === undefined ? {} : { secret: options.secret }) });
      return { keyId: `key-${requests.length}`, key: options.secret ?? 'generated', prefix: 'gen', createTime: new Date().toISOString(), etag: String(requests.length) };
    },
    list: async () => ({ apiKeys: [], totalSize: 0 }),
    delete: async () => undefined,
    revokeAll: async () => undefined,
  };
}

function gatewayOn(storage: MemoryStorage, requests: KeyRequest[] = []) {
  return createGateway({
    plugins: [
      definePlugin({ id: 'storage-shared', register: (b) => b.bindValue(storageToken, storage) }),
      definePlugin({ id: 'api-keys-recording', register: (b) => b.bindValue(apiKeyManagerToken, recordingApiKeys(requests)) }),
      staticTokenAuth({}),
    ],
    config: { bootstrapAccountId: 'boot', bootstrapApiKey: 'boot-admin-key-0001' },
  });
}

describe('account bootstrap', () => {
  it('creates one admin with the configured key, once, however many instances start', async () => {
    const storage = new MemoryStorage();
    const requests: KeyRequest[] = [];
    const a = gatewayOn(storage, requests);
    const b = gatewayOn(storage, requests);
    await Promise.all([a.start(), b.start()]);
    const users = await a.resolve(coreServicesToken).users.list(systemContext('t'), 'boot', {});
    expect(users.items.map((u) => [u.name, u.role])).toEqual([['accounts/boot/users/admin', 'admin']]);
    expect(requests).toEqual([{ userName: 'accounts/boot/users/admin', secret: 'boot-admin-key-0001' }]);
    await a.stop();
    await b.stop();
  });

  it('is retried by a later start when an earlier one failed after claiming it', async () => {
    let now = Date.now();
    const storage = new MemoryStorage({ now: () => now });
    // The first start fails between claiming bootstrap and creating the admin.
    const create = storage.resources.create.bind(storage.resources);
    let failUsers = true;
    storage.resources.create = (ctx, name, data) => {
      if (failUsers && name.includes('/users/')) return Promise.reject(new Error('crash while creating the admin'));
      return create(ctx, name, data);
    };
    await expect(gatewayOn(storage).start()).rejects.toThrow('crash while creating the admin');
    failUsers = false;
    // A later start, once the claim has expired, finishes the bootstrap.
    now += 61_000;
    const gateway = gatewayOn(storage);
    await gateway.start();
    const users = await gateway.resolve(coreServicesToken).users.list(systemContext('t'), 'boot', {});
    expect(users.totalSize).toBe(1);
    await gateway.stop();
  });
});
