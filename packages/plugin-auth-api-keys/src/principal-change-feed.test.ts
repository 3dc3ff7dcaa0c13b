import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '@berth/core/testing';
import { silentLogger, systemContext } from '@berth/core';
import { IdentityCache } from './identity-cache.js';
import { PrincipalChangeFeed, publishPrincipalChange } from './principal-change-feed.js';

const ctx = systemContext('principal-change-feed-test');

describe('PrincipalChangeFeed', () => {
  it('forgets what it reads, and removes its outbox consumer when it stops (no row left per started instance)', async () => {
    const storage = new MemoryStorage();
    const cache = new IdentityCache({ ttlMs: 5000, staleBoundMs: 1000 });
    const feed = new PrincipalChangeFeed(storage.outbox, cache, () => 0, silentLogger);
    cache.remember('key', { principal: { userName: 'accounts/acme/users/alice', accountId: 'acme', role: 'admin' }, until: 10_000, hash: 'h' }, cache.readStarted());
    await publishPrincipalChange(ctx, storage.outbox, { userName: 'accounts/acme/users/alice' });
    await feed.poll();
    expect(cache.fresh('key', 1)).toBeUndefined();
    // Read and acknowledged: nothing left for this consumer while it runs.
    expect(await storage.outbox.poll(ctx, feed.consumer, 10)).toEqual([]);
    await feed.stop();
    // Its position is gone: the same name would read the retained outbox from the start again.
    expect(await storage.outbox.poll(ctx, feed.consumer, 10)).toHaveLength(1);
  });
});
