import { describe, expect, it } from 'vitest';
import { IdentityCache, type CachedIdentity } from './identity-cache.js';

const alice = (hash = 'h-alice'): CachedIdentity => ({
  principal: { userName: 'accounts/acme/users/alice', accountId: 'acme', role: 'admin' },
  until: 10_000,
  hash,
});

function syncedCache(options: { ttlMs?: number; staleBoundMs?: number } = {}): IdentityCache {
  const cache = new IdentityCache({ ttlMs: options.ttlMs ?? 5000, staleBoundMs: options.staleBoundMs ?? 1000 });
  cache.synced(0);
  return cache;
}

describe('IdentityCache', () => {
  it('answers a remembered identity while it is fresh', () => {
    const cache = syncedCache();
    cache.remember('key', alice(), cache.readStarted());
    expect(cache.fresh('key', 500)?.principal?.role).toBe('admin');
    expect(cache.fresh('other', 500)).toBeUndefined();
    expect(cache.fresh('key', 10_000)).toBeUndefined();
  });

  it('does not store an answer read before a forget (the read may have seen the old role)', () => {
    const cache = syncedCache();
    const started = cache.readStarted();
    cache.forgetUser('accounts/acme/users/alice');
    cache.remember('key', alice(), started);
    expect(cache.fresh('key', 1)).toBeUndefined();
    cache.remember('key', alice(), cache.readStarted());
    expect(cache.fresh('key', 1)).toBeDefined();
  });

  it('forgets by user and by key hash, and only those', () => {
    const cache = syncedCache();
    cache.remember('a1', alice('h1'), cache.readStarted());
    cache.remember('a2', alice('h2'), cache.readStarted());
    cache.remember('b', { principal: { userName: 'accounts/acme/users/bob', accountId: 'acme', role: 'user' }, until: 10_000, hash: 'hb' }, cache.readStarted());
    cache.forgetKey('h1');
    expect([cache.fresh('a1', 1), cache.fresh('a2', 1), cache.fresh('b', 1)].map((e) => e !== undefined)).toEqual([false, true, true]);
    cache.forgetUser('accounts/acme/users/alice');
    expect([cache.fresh('a2', 1), cache.fresh('b', 1)].map((e) => e !== undefined)).toEqual([false, true]);
  });

  it('trusts nothing before the change feed completed a pass, nor once its last pass is older than the bound', () => {
    const cache = new IdentityCache({ ttlMs: 60_000, staleBoundMs: 1000 });
    cache.remember('key', { ...alice(), until: 60_000 }, cache.readStarted());
    expect(cache.fresh('key', 0)).toBeUndefined();
    cache.synced(100);
    expect(cache.fresh('key', 1100)).toBeDefined();
    expect(cache.fresh('key', 1101)).toBeUndefined();
    cache.synced(50);
    expect(cache.fresh('key', 1101)).toBeUndefined();
    cache.synced(2000);
    expect(cache.fresh('key', 2500)).toBeDefined();
  });

  it('remembers nothing with a zero ttl', () => {
    const cache = syncedCache({ ttlMs: 0 });
    cache.remember('key', alice(), cache.readStarted());
    expect(cache.fresh('key', 1)).toBeUndefined();
  });
});
