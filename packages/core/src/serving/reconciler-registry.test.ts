import { describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { KeyValueStore, Storage } from '../ports/storage.js';
import { MemoryStorage } from '../testing/index.js';
import { servingIndexKey } from './reconciler-model.js';
import { ManagedDeployments } from './reconciler-registry.js';

const ctx = systemContext('test');

function setup(storage: Pick<Storage, 'kv'> = new MemoryStorage()) {
  const warnings: string[] = [];
  const logger: GatewayLogger = { debug() {}, info() {}, warn: (_obj, msg) => void warnings.push(String(msg)), error() {} };
  let stopped = false;
  const registry = new ManagedDeployments({ storage, logger }, () => stopped);
  return { registry, storage, warnings, stop: () => void (stopped = true) };
}

describe('ManagedDeployments', () => {
  it('makes an entry once and saves the sorted names, unless told not to', async () => {
    const { registry, storage } = setup();
    const b = registry.entry('accounts/a/deployments/b');
    registry.entry('accounts/a/deployments/c', false);
    expect(registry.entry('accounts/a/deployments/b')).toBe(b);
    await registry.saved();
    expect(await storage.kv.get(ctx, servingIndexKey)).toEqual(['accounts/a/deployments/b']);
    registry.entry('accounts/a/deployments/a');
    await registry.saved();
    expect(await storage.kv.get(ctx, servingIndexKey)).toEqual(['accounts/a/deployments/a', 'accounts/a/deployments/b', 'accounts/a/deployments/c']);
    expect(b).toMatchObject({ name: 'accounts/a/deployments/b', failures: 0, nextStartAt: 0, data: undefined });
    expect(b.replicas.size).toBe(0);
  });

  it('loads the saved index without saving it again, skipping what is not a name', async () => {
    const storage = new MemoryStorage();
    await storage.kv.set(ctx, servingIndexKey, ['accounts/a/deployments/x', 7, 'accounts/a/deployments/y']);
    const { registry } = setup(storage);
    await registry.loadIndex(ctx);
    expect(registry.names()).toEqual(['accounts/a/deployments/x', 'accounts/a/deployments/y']);
    await storage.kv.set(ctx, servingIndexKey, 'untouched');
    await registry.saved();
    expect(await storage.kv.get(ctx, servingIndexKey)).toBe('untouched');
  });

  it('remove saves the index and announces the change; a listener that throws stops no other', async () => {
    const { registry, storage } = setup();
    const heard: string[] = [];
    registry.onChange(() => {
      throw new Error('listener failure');
    });
    const off = registry.onChange((name) => heard.push(name));
    registry.entry('accounts/a/deployments/d');
    registry.remove('accounts/a/deployments/d');
    await registry.saved();
    expect(await storage.kv.get(ctx, servingIndexKey)).toEqual([]);
    expect(registry.get('accounts/a/deployments/d')).toBeUndefined();
    expect(heard).toEqual(['accounts/a/deployments/d']);
    off();
    registry.changed('accounts/a/deployments/e');
    expect(heard).toHaveLength(1);
  });

  it('logs a save that fails and keeps saving later; saves nothing once stopped', async () => {
    const memory = new MemoryStorage();
    let failNext = true;
    const kv: KeyValueStore = {
      get: (...args) => memory.kv.get(...args),
      set: (...args) => {
        if (!failNext) return memory.kv.set(...args);
        failNext = false;
        return Promise.reject(new Error('disk full'));
      },
      delete: (...args) => memory.kv.delete(...args),
      increment: (...args) => memory.kv.increment(...args),
    };
    const storage = { kv };
    const { registry, warnings, stop } = setup(storage);
    registry.entry('accounts/a/deployments/a');
    registry.entry('accounts/a/deployments/b');
    await registry.saved();
    expect(warnings).toEqual(['cannot save the serving index']);
    expect(await memory.kv.get(ctx, servingIndexKey)).toEqual(['accounts/a/deployments/a', 'accounts/a/deployments/b']);
    stop();
    registry.entry('accounts/a/deployments/c');
    await registry.saved();
    expect(await memory.kv.get(ctx, servingIndexKey)).toHaveLength(2);
  });
});
