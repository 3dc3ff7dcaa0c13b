import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../testing/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { Storage, StorageTransaction, TransactionResourceStore } from '../../ports/storage.js';
import { TransactionScopedStorage } from './transaction-scoped-storage.js';

const ctx: RequestContext = { requestId: 'scoped' };

/** A memory storage whose transaction stores record the reads they serve, and refuse them once the transaction ended. */
function recordingStorage(): { storage: Storage; txReads: string[] } {
  const memory = new MemoryStorage();
  const txReads: string[] = [];
  const storage: Storage = {
    resources: memory.resources,
    blobs: memory.blobs,
    queue: memory.queue,
    outbox: memory.outbox,
    kv: memory.kv,
    transaction: (c, work) =>
      memory.transaction(c, async (tx) => {
        let open = true;
        const resources: TransactionResourceStore = {
          create: (cc, name, data) => tx.resources.create(cc, name, data),
          get: (cc, name) => {
            if (!open) throw new Error('used after the transaction ended');
            txReads.push(name);
            return tx.resources.get(cc, name);
          },
          getForUpdate: (cc, name) => tx.resources.getForUpdate(cc, name),
          update: (cc, name, data, etag) => tx.resources.update(cc, name, data, etag),
          delete: (cc, name, etag) => tx.resources.delete(cc, name, etag),
          list: (cc, query) => tx.resources.list(cc, query),
        };
        const scoped: StorageTransaction = { ...tx, resources, lock: (cc, key) => tx.lock(cc, key) };
        try {
          return await work(scoped);
        } finally {
          open = false;
        }
      }),
  };
  return { storage, txReads };
}

describe('TransactionScopedStorage', () => {
  it('routes calls made with the context a transaction hands its work to that transaction, joins it when nested, and rolls back with it', async () => {
    const { storage, txReads } = recordingStorage();
    const scoped = TransactionScopedStorage.over(storage);
    expect(TransactionScopedStorage.over(scoped)).toBe(scoped);
    await expect(
      scoped.transaction(ctx, async (_tx, txCtx) => {
        await scoped.resources.create(txCtx, 'accounts/a/models/m', { name: 'accounts/a/models/m' });
        await scoped.transaction(txCtx, (_inner, joined) => {
          expect(joined).toBe(txCtx);
          return scoped.resources.get(joined, 'accounts/a/models/m');
        });
        // The caller's own context is not bound: this read goes to the root store (the recorder does not see it).
        await scoped.resources.get(ctx, 'accounts/a/models/m');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(txReads).toEqual(['accounts/a/models/m']);
    expect(await scoped.resources.get(ctx, 'accounts/a/models/m')).toBeUndefined();
    expect(txReads).toHaveLength(1);
  });

  it('hands the work a context that reads through to the caller\'s', async () => {
    const { storage } = recordingStorage();
    const scoped = new TransactionScopedStorage(storage);
    const signal = new AbortController().signal;
    const caller: RequestContext = { requestId: 'r-1', principal: { userName: 'accounts/a/users/u', accountId: 'a', role: 'admin' }, signal, deadline: 42 };
    const seen = await scoped.transaction(caller, async (_tx, txCtx) => ({ ...{ requestId: txCtx.requestId, principal: txCtx.principal, signal: txCtx.signal, deadline: txCtx.deadline }, same: txCtx === caller }));
    expect(seen).toEqual({ requestId: 'r-1', principal: caller.principal, signal, deadline: 42, same: false });
  });

  it('sends calls made with a transaction\'s context after it ended to the root store', async () => {
    const { storage, txReads } = recordingStorage();
    const scoped = new TransactionScopedStorage(storage);
    let later: Promise<unknown> = Promise.resolve();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await scoped.transaction(ctx, async (_tx, txCtx) => {
      later = gate.then(() => scoped.resources.get(txCtx, 'accounts/a/models/late'));
    });
    release();
    await expect(later).resolves.toBeUndefined();
    expect(txReads).toEqual([]);
  });
});
