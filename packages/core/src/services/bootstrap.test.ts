import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../testing/index.js';
import { apiKeyAuth } from '../../../plugin-auth-api-keys/src/index.js';
import { createGateway } from '../kernel/gateway.js';
import { definePlugin } from '../kernel/plugin.js';
import { systemContext } from '../kernel/request-context.js';
import { authenticatorToken, storageToken } from '../kernel/tokens.js';
import { coreServicesToken } from './core-services.js';

function gatewayOn(storage: MemoryStorage) {
  return createGateway({
    plugins: [definePlugin({ id: 'storage-shared', register: (b) => b.bindValue(storageToken, storage) }), apiKeyAuth({ cacheTtlMs: 0 })],
    config: { bootstrapAccountId: 'boot', bootstrapApiKey: 'boot-admin-key-0001' },
  });
}

describe('account bootstrap', () => {
  it('creates one admin with the configured key, once, however many instances start', async () => {
    const storage = new MemoryStorage();
    const a = gatewayOn(storage);
    const b = gatewayOn(storage);
    await Promise.all([a.start(), b.start()]);
    const users = await a.resolve(coreServicesToken).users.list(systemContext('t'), 'boot', {});
    expect(users.items.map((u) => [u.name, u.role])).toEqual([['accounts/boot/users/admin', 'admin']]);
    expect((await a.resolve(authenticatorToken).authenticate(systemContext('t'), 'boot-admin-key-0001'))?.role).toBe('admin');
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
