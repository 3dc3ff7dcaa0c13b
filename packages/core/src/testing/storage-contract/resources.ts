import { describe, expect, it } from 'vitest';
import { Code } from '../../errors/code.js';
import { ctx, expectCode, uid, type StorageGetter } from './support.js';
import type { JsonObject } from '../../ports/json.js';
import { parseOrderBy } from '../../listing/order-by.js';

/** Create, get, update, delete: codes, etags and concurrency. */
export function resourceTests(storage: StorageGetter): void {
  describe('resources', () => {
    const model = (account = uid('a'), id = uid('m')): string => `accounts/${account}/models/${id}`;

    it('creates a resource and gets it back with an etag', async () => {
      const name = model();
      const data = { name, displayName: 'First', nested: { list: [1, 'two', true, null] } };
      const created = await storage().resources.create(ctx, name, data);
      expect(created.name).toBe(name);
      expect(created.data).toEqual(data);
      expect(typeof created.etag).toBe('string');
      expect(created.etag.length).toBeGreaterThan(0);
      const got = await storage().resources.get(ctx, name);
      expect(got).toEqual({ name, data, etag: created.etag });
    });

    it('returns undefined for a missing resource', async () => {
      expect(await storage().resources.get(ctx, model())).toBeUndefined();
    });

    it('keeps its own copy of the data', async () => {
      const name = model();
      const data: JsonObject = { name, displayName: 'Original', tags: ['a'] };
      const created = await storage().resources.create(ctx, name, data);
      data.displayName = 'Mutated input';
      // Returned bodies are read-only: an adapter may freeze them (mutation throws) or copy them.
      try {
        (created.data as { tags: string[] }).tags.push('mutated output');
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
      }
      const got = await storage().resources.get(ctx, name);
      expect(got?.data).toEqual({ name, displayName: 'Original', tags: ['a'] });
    });

    it('rejects a second create of the same name with ALREADY_EXISTS', async () => {
      const name = model();
      await storage().resources.create(ctx, name, { name, v: 1 });
      await expectCode(storage().resources.create(ctx, name, { name, v: 2 }), Code.ALREADY_EXISTS);
      expect((await storage().resources.get(ctx, name))?.data).toEqual({ name, v: 1 });
    });

    it('lets exactly one of 20 concurrent creates of one name win', async () => {
      const name = model();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => storage().resources.create(ctx, name, { name, writer: i })),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(19);
      for (const r of lost) expect(r.reason).toMatchObject({ code: Code.ALREADY_EXISTS });
      const winner = (won[0] as PromiseFulfilledResult<{ data: JsonObject }>).value;
      expect((await storage().resources.get(ctx, name))?.data).toEqual(winner.data);
    });

    it('updates with the current etag and changes the etag', async () => {
      const name = model();
      const created = await storage().resources.create(ctx, name, { name, v: 1 });
      const updated = await storage().resources.update(ctx, name, { name, v: 2 }, created.etag);
      expect(updated.data).toEqual({ name, v: 2 });
      expect(updated.etag).not.toBe(created.etag);
      expect(await storage().resources.get(ctx, name)).toEqual({ name, data: { name, v: 2 }, etag: updated.etag });
    });

    it('rejects an update with a stale etag with ABORTED and keeps the data', async () => {
      const name = model();
      const created = await storage().resources.create(ctx, name, { name, v: 1 });
      const updated = await storage().resources.update(ctx, name, { name, v: 2 }, created.etag);
      await expectCode(storage().resources.update(ctx, name, { name, v: 3 }, created.etag), Code.ABORTED);
      await expectCode(storage().resources.update(ctx, name, { name, v: 3 }, 'not-an-etag'), Code.ABORTED);
      expect(await storage().resources.get(ctx, name)).toEqual({ name, data: { name, v: 2 }, etag: updated.etag });
    });

    it('rejects an update of a missing resource with NOT_FOUND', async () => {
      const name = model();
      await expectCode(storage().resources.update(ctx, name, { name }, '1'), Code.NOT_FOUND);
    });

    it('loses no update when concurrent writers retry on ABORTED', async () => {
      const name = model();
      await storage().resources.create(ctx, name, { name, count: 0 });
      const writers = 8;
      const perWriter = 5;
      let conflicts = 0;
      const writer = async (): Promise<void> => {
        for (let done = 0; done < perWriter; ) {
          const current = await storage().resources.get(ctx, name);
          if (current === undefined) throw new Error('resource vanished');
          try {
            await storage().resources.update(ctx, name, { name, count: (current.data.count as number) + 1 }, current.etag);
            done += 1;
          } catch (error) {
            expect(error).toMatchObject({ code: Code.ABORTED });
            conflicts += 1;
          }
        }
      };
      await Promise.all(Array.from({ length: writers }, writer));
      expect((await storage().resources.get(ctx, name))?.data.count).toBe(writers * perWriter);
      expect(conflicts).toBeGreaterThanOrEqual(0);
    });

    it('deletes, with and without an etag', async () => {
      const a = model();
      const b = model();
      await storage().resources.create(ctx, a, { name: a });
      const createdB = await storage().resources.create(ctx, b, { name: b });
      await storage().resources.delete(ctx, a);
      expect(await storage().resources.get(ctx, a)).toBeUndefined();
      await storage().resources.delete(ctx, b, createdB.etag);
      expect(await storage().resources.get(ctx, b)).toBeUndefined();
    });

    it('rejects deleting a missing resource with NOT_FOUND', async () => {
      await expectCode(storage().resources.delete(ctx, model()), Code.NOT_FOUND);
      await expectCode(storage().resources.delete(ctx, model(), '1'), Code.NOT_FOUND);
    });

    it('rejects a delete with a stale etag with ABORTED and keeps the resource', async () => {
      const name = model();
      const created = await storage().resources.create(ctx, name, { name, v: 1 });
      await storage().resources.update(ctx, name, { name, v: 2 }, created.etag);
      await expectCode(storage().resources.delete(ctx, name, created.etag), Code.ABORTED);
      expect((await storage().resources.get(ctx, name))?.data).toEqual({ name, v: 2 });
    });

    it('never reuses an etag for a resource re-created under the same name', async () => {
      const name = model();
      const first = await storage().resources.create(ctx, name, { name, v: 1 });
      await storage().resources.delete(ctx, name);
      const second = await storage().resources.create(ctx, name, { name, v: 2 });
      expect(second.etag).not.toBe(first.etag);
      await expectCode(storage().resources.update(ctx, name, { name, v: 3 }, first.etag), Code.ABORTED);
    });

    it('lists only the parent and collection asked for', async () => {
      const account = uid('a');
      const other = uid('a');
      const names = {
        model1: `accounts/${account}/models/m1`,
        model2: `accounts/${account}/models/m2`,
        dataset: `accounts/${account}/datasets/d1`,
        user: `accounts/${account}/users/u1`,
        apiKey: `accounts/${account}/users/u1/apiKeys/k1`,
        otherModel: `accounts/${other}/models/m1`,
      };
      for (const name of Object.values(names)) await storage().resources.create(ctx, name, { name });
      const orderBy = parseOrderBy('', {}, '');
      const list = async (parent: string, collection: string): Promise<string[]> =>
        (await storage().resources.list(ctx, { parent, collection, orderBy, pageSize: 50 })).items.map((item) => item.name);
      expect(await list(`accounts/${account}`, 'models')).toEqual([names.model1, names.model2]);
      expect(await list(`accounts/${account}`, 'datasets')).toEqual([names.dataset]);
      expect(await list(`accounts/${account}`, 'users')).toEqual([names.user]);
      expect(await list(`accounts/${account}/users/u1`, 'apiKeys')).toEqual([names.apiKey]);
      expect(await list(`accounts/${other}`, 'models')).toEqual([names.otherModel]);
      expect(await list(`accounts/${uid('a')}`, 'models')).toEqual([]);
      const result = await storage().resources.list(ctx, { parent: `accounts/${account}`, collection: 'models', orderBy, pageSize: 50 });
      expect(result.totalSize).toBe(2);
      expect(result.hasMore).toBe(false);
      expect(result.items[0]?.etag).toBe((await storage().resources.get(ctx, names.model1))?.etag);
    });
  });
}
