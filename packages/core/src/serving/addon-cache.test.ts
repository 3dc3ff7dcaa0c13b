import { describe, expect, it } from 'vitest';
import { Code, isGatewayError } from '../errors/index.js';
import { ReplicaAddonCache } from './addon-cache.js';

/** A replica whose loads finish when the test says so, refusing to hold more than `max` add-ons. */
function fakeReplica(max: number) {
  const loaded = new Set<string>();
  const calls: string[] = [];
  const pending = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  let manual = false;
  return {
    loaded,
    calls,
    manual(on: boolean) {
      manual = on;
    },
    finish(name: string, error?: Error) {
      const p = pending.get(name);
      pending.delete(name);
      if (error) p?.reject(error);
      else p?.resolve();
    },
    ops: {
      load: async (name: string) => {
        calls.push(`load ${name}`);
        if (loaded.size >= max) throw new Error(`over capacity loading ${name}`);
        if (manual) await new Promise<void>((resolve, reject) => pending.set(name, { resolve, reject }));
        loaded.add(name);
      },
      unload: async (name: string) => {
        calls.push(`unload ${name}`);
        loaded.delete(name);
      },
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('ReplicaAddonCache', () => {
  it('keeps at most capacity add-ons loaded, evicting the least recently used idle one, and reloads on demand', async () => {
    const replica = fakeReplica(2);
    const cache = new ReplicaAddonCache(2, replica.ops);
    (await cache.acquire('a'))();
    (await cache.acquire('b'))();
    (await cache.acquire('a'))(); // a is now the most recently used
    (await cache.acquire('c'))(); // evicts b
    expect(replica.calls).toEqual(['load a', 'load b', 'unload b', 'load c']);
    expect(cache.names().sort()).toEqual(['a', 'c']);
    (await cache.acquire('b'))(); // b again: evicts a (least recently used)
    expect(replica.calls.slice(-2)).toEqual(['unload a', 'load b']);
    expect([...replica.loaded].sort()).toEqual(['b', 'c']);
    expect({ loads: cache.loads, unloads: cache.unloads }).toEqual({ loads: 4, unloads: 2 });
  });

  it('never unloads an add-on a request holds: a request for another waits for a free slot, then loads', async () => {
    const replica = fakeReplica(1);
    const cache = new ReplicaAddonCache(1, replica.ops);
    const unpinA = await cache.acquire('a');
    let gotB = false;
    const b = cache.acquire('b').then((unpin) => {
      gotB = true;
      return unpin;
    });
    await tick();
    expect(gotB).toBe(false);
    expect(replica.loaded.has('a')).toBe(true);
    unpinA();
    const unpinB = await b;
    expect(gotB).toBe(true);
    expect(replica.calls).toEqual(['load a', 'unload a', 'load b']);
    unpinB();
  });

  it('shares one load among requests for the same add-on, and shares its failure', async () => {
    const replica = fakeReplica(4);
    replica.manual(true);
    const cache = new ReplicaAddonCache(4, replica.ops);
    const first = cache.acquire('a');
    const second = cache.acquire('a');
    await tick();
    replica.finish('a');
    (await first)();
    (await second)();
    expect(replica.calls).toEqual(['load a']);

    const failing = [cache.acquire('bad'), cache.acquire('bad')];
    await tick();
    replica.finish('bad', new Error('corrupt adapter'));
    for (const attempt of failing) await expect(attempt).rejects.toThrow('corrupt adapter');
    expect(cache.names()).toEqual(['a']);
    expect(replica.calls).toEqual(['load a', 'load bad']);
  });

  it('unloads an undeployed add-on at once when idle, or when its last request ends', async () => {
    const replica = fakeReplica(4);
    const cache = new ReplicaAddonCache(4, replica.ops);
    (await cache.acquire('idle'))();
    const unpin = await cache.acquire('busy');
    await cache.remove('idle');
    await cache.remove('busy');
    expect([...replica.loaded]).toEqual(['busy']);
    unpin();
    await tick();
    expect([...replica.loaded]).toEqual([]);
    expect(cache.names()).toEqual([]);
  });

  it('adopts what the replica has loaded, and a waiting request can be cancelled', async () => {
    const replica = fakeReplica(1);
    replica.loaded.add('old');
    const cache = new ReplicaAddonCache(1, replica.ops);
    cache.adopt(['old']);
    const unpin = await cache.acquire('old');
    expect(replica.calls).toEqual([]);
    const controller = new AbortController();
    const waiting = cache.acquire('new', controller.signal);
    await tick();
    controller.abort();
    const error = await waiting.catch((e: unknown) => e);
    expect(isGatewayError(error) && error.code).toBe(Code.CANCELLED);
    unpin();
  });
});
