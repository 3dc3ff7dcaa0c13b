import { describe, expect, it } from 'vitest';
import { Code } from '../../errors/code.js';
import type { JsonValue } from '../../ports/json.js';
import { ctx, drain, expectCode, sleep, uid, type StorageGetter } from './support.js';

/** Outbox: ordering, per-consumer positions, acks that never move backwards. */
export function outboxTests(storage: StorageGetter): void {
  describe('outbox', () => {
    it('prunes events created before a time and keeps later ones with their sequences', async () => {
      const consumer = uid('c');
      await drain(storage().outbox, consumer);
      const topic = uid('topic');
      await storage().outbox.publish(ctx, topic, { old: 1 });
      await storage().outbox.publish(ctx, topic, { old: 2 });
      await new Promise((resolve) => setTimeout(resolve, 30));
      const cutoff = new Date();
      await new Promise((resolve) => setTimeout(resolve, 30));
      await storage().outbox.publish(ctx, topic, { young: 1 });
      expect(await storage().outbox.prune(ctx, cutoff)).toBeGreaterThanOrEqual(2);
      const left = (await storage().outbox.poll(ctx, consumer, 1000)).filter((e) => e.topic === topic);
      expect(left.map((e) => e.payload)).toEqual([{ young: 1 }]);
      expect(await storage().outbox.prune(ctx, cutoff)).toBe(0);
    });

    it('delivers events oldest first and moves each consumer separately', async () => {
      const a = uid('c');
      const b = uid('c');
      await drain(storage().outbox, a);
      await drain(storage().outbox, b);
      const topic = uid('topic');
      const before = Date.now();
      for (let i = 0; i < 5; i++) await storage().outbox.publish(ctx, topic, { i });
      const first = await storage().outbox.poll(ctx, a, 3);
      expect(first.map((e) => [e.topic, e.payload])).toEqual([0, 1, 2].map((i) => [topic, { i }]));
      expect(first[1]!.sequence).toBeGreaterThan(first[0]!.sequence);
      expect(first[2]!.sequence).toBeGreaterThan(first[1]!.sequence);
      expect(Date.parse(first[0]!.createTime)).toBeGreaterThanOrEqual(before - 1000);
      // Polling does not move the position; acknowledging does.
      expect(await storage().outbox.poll(ctx, a, 3)).toEqual(first);
      await storage().outbox.ack(ctx, a, first[1]!.sequence);
      expect((await storage().outbox.poll(ctx, a, 10)).map((e) => e.payload)).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }]);
      await storage().outbox.ack(ctx, a, first[0]!.sequence);
      expect((await storage().outbox.poll(ctx, a, 10)).map((e) => e.payload)).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }]);
      expect((await storage().outbox.poll(ctx, b, 10)).map((e) => e.payload)).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
      const rest = await storage().outbox.poll(ctx, a, 10);
      await storage().outbox.ack(ctx, a, rest[rest.length - 1]!.sequence);
      expect(await storage().outbox.poll(ctx, a, 10)).toEqual([]);
    });

    it('removes a consumer: its position is gone, other consumers keep theirs, an unknown one is ignored', async () => {
      const a = uid('c');
      const b = uid('c');
      const topic = uid('topic');
      await storage().outbox.publish(ctx, topic, { i: 0 });
      await drain(storage().outbox, a);
      await drain(storage().outbox, b);
      await storage().outbox.removeConsumer(ctx, a);
      await storage().outbox.removeConsumer(ctx, uid('never-seen'));
      // Without a position, `a` reads the retained outbox from the start again.
      expect((await storage().outbox.poll(ctx, a, 100_000)).some((e) => e.topic === topic)).toBe(true);
      expect(await storage().outbox.poll(ctx, b, 10)).toEqual([]);
    });

    it('gives concurrent publishes distinct increasing sequences', async () => {
      const consumer = uid('c');
      await drain(storage().outbox, consumer);
      const topic = uid('topic');
      await Promise.all(Array.from({ length: 20 }, (_, i) => storage().outbox.publish(ctx, topic, i)));
      const events = await storage().outbox.poll(ctx, consumer, 100);
      expect(events).toHaveLength(20);
      expect(events.map((e) => e.payload).sort((x, y) => (x as number) - (y as number))).toEqual(Array.from({ length: 20 }, (_, i) => i));
      for (let i = 1; i < events.length; i++) expect(events[i]!.sequence).toBeGreaterThan(events[i - 1]!.sequence);
    });

    it('never lets a consumer skip an event committed after a later-published one', async () => {
      const consumer = uid('c');
      await drain(storage().outbox, consumer);
      const topic = uid('topic');
      const slow = storage().transaction(ctx, async (tx) => {
        await tx.outbox.publish(ctx, topic, 'in slow transaction');
        await sleep(150);
      });
      await sleep(30);
      const fast = storage().outbox.publish(ctx, topic, 'published meanwhile');
      // A consumer working while the transaction is open acknowledges whatever it can see.
      const seen: JsonValue[] = [];
      const consume = async (): Promise<void> => {
        const events = await storage().outbox.poll(ctx, consumer, 10);
        seen.push(...events.map((e) => e.payload));
        const last = events[events.length - 1];
        if (last !== undefined) await storage().outbox.ack(ctx, consumer, last.sequence);
      };
      await sleep(30);
      await consume();
      await Promise.all([slow, fast]);
      await consume();
      expect([...seen].sort()).toEqual(['in slow transaction', 'published meanwhile']);
    });
  });
}

/** Key-value store: ttl, ifAbsent, delete, atomic increments. */
export function kvTests(storage: StorageGetter): void {
  describe('kv', () => {
    it('sets, gets and deletes values of every JSON kind', async () => {
      const values: JsonValue[] = [{ a: [1, { b: null }] }, [1, 'x'], 'text', 3.5, 0, true, false, null];
      for (const value of values) {
        const key = uid('k');
        expect(await storage().kv.set(ctx, key, value)).toBe(true);
        expect(await storage().kv.get(ctx, key)).toEqual(value);
        expect(await storage().kv.delete(ctx, key)).toBe(true);
        expect(await storage().kv.get(ctx, key)).toBeUndefined();
        expect(await storage().kv.delete(ctx, key)).toBe(false);
      }
    });

    it('overwrites without ifAbsent', async () => {
      const key = uid('k');
      await storage().kv.set(ctx, key, 1);
      expect(await storage().kv.set(ctx, key, 2)).toBe(true);
      expect(await storage().kv.get(ctx, key)).toBe(2);
    });

    it('expires values after their ttl', async () => {
      const key = uid('k');
      await storage().kv.set(ctx, key, 'short', { ttlMs: 80 });
      expect(await storage().kv.get(ctx, key)).toBe('short');
      await sleep(150);
      expect(await storage().kv.get(ctx, key)).toBeUndefined();
      expect(await storage().kv.delete(ctx, key)).toBe(false);
    });

    it('writes with ifAbsent only when no live value exists', async () => {
      const key = uid('k');
      expect(await storage().kv.set(ctx, key, 'first', { ifAbsent: true, ttlMs: 80 })).toBe(true);
      expect(await storage().kv.set(ctx, key, 'second', { ifAbsent: true })).toBe(false);
      expect(await storage().kv.get(ctx, key)).toBe('first');
      await sleep(150);
      expect(await storage().kv.set(ctx, key, 'third', { ifAbsent: true })).toBe(true);
      expect(await storage().kv.get(ctx, key)).toBe('third');
      const contested = uid('k');
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => storage().kv.set(ctx, contested, i, { ifAbsent: true })));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await storage().kv.get(ctx, contested)).toBe(results.indexOf(true));
    });

    it('increments from zero, atomically', async () => {
      const key = uid('k');
      expect(await storage().kv.increment(ctx, key, 5)).toBe(5);
      expect(await storage().kv.increment(ctx, key, -2)).toBe(3);
      expect(await storage().kv.get(ctx, key)).toBe(3);
      const counter = uid('k');
      const results = await Promise.all(Array.from({ length: 50 }, () => storage().kv.increment(ctx, counter, 1)));
      expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await storage().kv.get(ctx, counter)).toBe(50);
    });

    it('restarts an expired counter and keeps a live counter\'s expiry', async () => {
      const key = uid('k');
      expect(await storage().kv.increment(ctx, key, 1, 120)).toBe(1);
      await sleep(50);
      expect(await storage().kv.increment(ctx, key, 1, 120)).toBe(2);
      await sleep(110);
      // The window opened by the first increment has closed, although the second came later.
      expect(await storage().kv.get(ctx, key)).toBeUndefined();
      expect(await storage().kv.increment(ctx, key, 1, 120)).toBe(1);
    });
  });
}

/** Transactions: commit and rollback of resources, jobs and events together. */
export function transactionTests(storage: StorageGetter): void {
  describe('transaction', () => {
    it('commits resources, jobs and events together and returns the result', async () => {
      const consumer = uid('c');
      await drain(storage().outbox, consumer);
      const name = `accounts/${uid('a')}/models/${uid('m')}`;
      const queue = uid('q');
      const topic = uid('topic');
      const result = await storage().transaction(ctx, async (tx) => {
        const created = await tx.resources.create(ctx, name, { name, v: 1 });
        const updated = await tx.resources.update(ctx, name, { name, v: 2 }, created.etag);
        expect(await tx.resources.get(ctx, name)).toEqual(updated);
        const job = await tx.queue.enqueue(ctx, { queue, payload: name });
        await tx.outbox.publish(ctx, topic, { name });
        return { job: job.id, etag: updated.etag };
      });
      expect(await storage().resources.get(ctx, name)).toEqual({ name, data: { name, v: 2 }, etag: result.etag });
      expect((await storage().queue.get(ctx, result.job))?.state).toBe('queued');
      expect((await storage().outbox.poll(ctx, consumer, 10)).map((e) => [e.topic, e.payload])).toEqual([[topic, { name }]]);
    });

    it('rolls back resources, jobs and events when the work throws', async () => {
      const consumer = uid('c');
      await drain(storage().outbox, consumer);
      const account = uid('a');
      const kept = `accounts/${account}/models/kept`;
      const removed = `accounts/${account}/models/removed`;
      const added = `accounts/${account}/models/added`;
      const keptBefore = await storage().resources.create(ctx, kept, { name: kept, v: 1 });
      const removedBefore = await storage().resources.create(ctx, removed, { name: removed });
      const queue = uid('q');
      const waiting = await storage().queue.enqueue(ctx, { queue, payload: 'waiting' });
      const leased = await storage().queue.enqueue(ctx, { queue: uid('q'), payload: 'leased' });
      await storage().queue.claim(ctx, leased.queue, 'w', 10_000);
      const failure = new Error('work failed');
      let enqueued: string | undefined;
      await expect(
        storage().transaction(ctx, async (tx) => {
          await tx.resources.create(ctx, added, { name: added });
          await tx.resources.update(ctx, kept, { name: kept, v: 2 }, keptBefore.etag);
          await tx.resources.delete(ctx, removed, removedBefore.etag);
          enqueued = (await tx.queue.enqueue(ctx, { queue, payload: 'rolled back' })).id;
          expect((await tx.queue.claim(ctx, queue, 'w', 10_000))?.id).toBe(waiting.id);
          await tx.queue.complete(ctx, leased.id, 1, 'rolled back');
          await tx.outbox.publish(ctx, uid('topic'), 'rolled back');
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await storage().resources.get(ctx, added)).toBeUndefined();
      expect(await storage().resources.get(ctx, kept)).toEqual(keptBefore);
      expect(await storage().resources.get(ctx, removed)).toEqual(removedBefore);
      expect(enqueued).toBeDefined();
      expect(await storage().queue.get(ctx, enqueued ?? '')).toBeUndefined();
      expect(await storage().queue.get(ctx, waiting.id)).toMatchObject({ state: 'queued', attempt: 0 });
      expect(await storage().queue.get(ctx, leased.id)).toMatchObject({ state: 'leased', attempt: 1 });
      expect(await storage().outbox.poll(ctx, consumer, 10)).toEqual([]);
      // What the transaction rolled back is usable as if it had never happened.
      await storage().resources.create(ctx, added, { name: added });
      expect((await storage().queue.claim(ctx, queue, 'w', 10_000))?.id).toBe(waiting.id);
    });

    it('keeps working after a write inside it fails with a storage error', async () => {
      const account = uid('a');
      const existing = `accounts/${account}/models/existing`;
      const fresh = `accounts/${account}/models/fresh`;
      const before = await storage().resources.create(ctx, existing, { name: existing });
      await storage().transaction(ctx, async (tx) => {
        await expectCode(tx.resources.create(ctx, existing, { name: existing, again: true }), Code.ALREADY_EXISTS);
        await expectCode(tx.resources.update(ctx, existing, { name: existing }, `${before.etag}0`), Code.ABORTED);
        await expectCode(tx.resources.delete(ctx, `${existing}-missing`), Code.NOT_FOUND);
        await tx.resources.create(ctx, fresh, { name: fresh });
      });
      expect(await storage().resources.get(ctx, fresh)).toBeDefined();
      expect(await storage().resources.get(ctx, existing)).toEqual(before);
    });
  });
}
