import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../kernel/index.js';
import { MemoryStorage } from './memory-storage.js';

const ctx: RequestContext = { requestId: 'memory-transactions' };
const name = 'accounts/a/models/m';

describe('memory transactions', () => {
  it('make a root write wait until the open transaction ends, so its rollback cannot undo the write', async () => {
    const storage = new MemoryStorage();
    const order: string[] = [];
    let rootWrite: Promise<unknown> = Promise.resolve();
    await expect(
      storage.transaction(ctx, async (tx) => {
        await tx.resources.create(ctx, name, { name, displayName: 'in the transaction' });
        rootWrite = storage.resources.create(ctx, `${name}-2`, { name: `${name}-2` }).then(() => order.push('root write'));
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('transaction ends');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await rootWrite;
    expect(order).toEqual(['transaction ends', 'root write']);
    expect(await storage.resources.get(ctx, name)).toBeUndefined();
    expect(await storage.resources.get(ctx, `${name}-2`)).toBeDefined();
  });

  it('run transactions one after another, in the order they were asked for', async () => {
    const storage = new MemoryStorage();
    const order: string[] = [];
    const run = (label: string, ms: number) =>
      storage.transaction(ctx, async () => {
        order.push(`${label} starts`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        order.push(`${label} ends`);
      });
    await Promise.all([run('first', 20), run('second', 0)]);
    expect(order).toEqual(['first starts', 'first ends', 'second starts', 'second ends']);
  });
});
