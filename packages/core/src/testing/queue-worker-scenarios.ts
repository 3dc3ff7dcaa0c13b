import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemContext } from '../kernel/request-context.js';
import type { ClaimedJob, JobQueue, Storage } from '../ports/storage.js';
import { commitJobEffects } from '../workers/exactly-once.js';
import { defineQueueHandler, type QueueHandler } from '../workers/queue-handler.js';
import { QueueWorkerPool, type QueueWorkerPoolSettings } from '../workers/queue-worker-pool.js';

/** A storage for the queue-worker scenarios and how to dispose of it. */
export interface ScenarioStorage {
  readonly storage: Storage;
  close(): Promise<void>;
}

const ctx = systemContext('test');
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is true, or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** The storage with some of its queue's operations replaced (the others pass through). */
function withQueue(storage: Storage, replaced: Partial<JobQueue>): Storage {
  const release = storage.queue.release?.bind(storage.queue);
  const queue: JobQueue = {
    enqueue: (c, r) => storage.queue.enqueue(c, r),
    claim: (c, q, w, l) => storage.queue.claim(c, q, w, l),
    renew: (c, id, a, l) => storage.queue.renew(c, id, a, l),
    complete: (c, id, a, r) => storage.queue.complete(c, id, a, r),
    fail: (c, id, a, e, t) => storage.queue.fail(c, id, a, e, t),
    get: (c, id) => storage.queue.get(c, id),
    ...(release === undefined ? {} : { release }),
    ...replaced,
  };
  return {
    resources: storage.resources,
    blobs: storage.blobs,
    queue,
    outbox: storage.outbox,
    kv: storage.kv,
    transaction: (c, work) => storage.transaction(c, work),
  };
}

/** The storage with `queue.renew` a no-op: a worker whose heartbeats never arrive (a paused process). */
export function withoutRenewals(storage: Storage): Storage {
  return withQueue(storage, { renew: async () => undefined });
}

/** Waits for conditions over state the test changes: `until(check)` resolves once `check()` holds after a `changed()`. */
class Events {
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ check, resolve }));
  }

  changed(): void {
    const ready = this.waiters.filter((waiter) => waiter.check());
    this.waiters = this.waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve();
  }
}

async function effectCount(storage: Storage, jobId: string): Promise<number> {
  const listed = await storage.resources.list(ctx, { parent: 'accounts/t', collection: 'effects', orderBy: [], pageSize: 1000 });
  return listed.items.filter((item) => item.data.jobId === jobId).length;
}

/**
 * Core's queue workers (`QueueWorkerPool`, `commitJobEffects`) on a storage adapter: every job runs once
 * across two pools, leases are renewed, failures retried with backoff then dead-lettered, a stale worker
 * is fenced and its effect rolled back (exactly once), and stop waits or gives up after its timeout.
 * A storage adapter runs it beside the storage contract:
 * `describeQueueWorkerScenarios('my store', async () => ({ storage, close }))`. `open` runs before each test.
 */
export function describeQueueWorkerScenarios(label: string, open: () => Promise<ScenarioStorage>): void {
  describe(`queue workers on ${label}`, () => {
    let db: ScenarioStorage;
    let storage: Storage;
    const pools: QueueWorkerPool[] = [];
    const pool = (handlers: QueueHandler[], settings: QueueWorkerPoolSettings = {}, on: Storage = storage): QueueWorkerPool => {
      const created = new QueueWorkerPool({ storage: on, handlers, pollIntervalMs: 20, stopTimeoutMs: 2000, ...settings });
      pools.push(created);
      created.start();
      return created;
    };

    beforeEach(async () => {
      db = await open();
      storage = db.storage;
    });
    afterEach(async () => {
      await Promise.all(pools.splice(0).map((p) => p.stop()));
      await db.close();
    });

    it('runs every job once across two pools and stores the result', async () => {
      const runs = new Map<string, number>();
      const handler = defineQueueHandler({
        queue: 'work',
        leaseMs: 2000,
        async handle(_ctx, job) {
          runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
          await sleep(5);
          return { doubled: Number((job.payload as { n: number }).n) * 2 };
        },
      });
      const jobs = await Promise.all(Array.from({ length: 24 }, (_, n) => storage.queue.enqueue(ctx, { queue: 'work', payload: { n } })));
      const a = pool([handler], { concurrency: 3, workerId: 'a' });
      const b = pool([handler], { concurrency: 3, workerId: 'b' });
      await waitFor(() => a.stats.completed + b.stats.completed === jobs.length, 15_000, 'all jobs');
      for (const [n, job] of jobs.entries()) {
        const stored = await storage.queue.get(ctx, job.id);
        expect(stored).toMatchObject({ state: 'completed', attempt: 1, result: { doubled: n * 2 } });
        expect(runs.get(job.id)).toBe(1);
      }
    });

    it('renews the lease while a handler outlives it, so no other worker takes the job', async () => {
      // Driven by events, not sleeps. The handler holds the job until the test releases it. Worker b
      // starts once a has renewed 4 times (4 x leaseMs/3 > leaseMs: the first lease is over), and each
      // of b's claims waits for a's next renewal, so every claim b makes meets a lease that only a
      // renewal keeps current, and never races a heartbeat delayed by a loaded machine.
      const leaseMs = 900;
      const events = new Events();
      let runs = 0;
      let renewals = 0;
      let released = false;
      let emptyClaimsByB = 0;
      let takenByB = false;
      const handler = defineQueueHandler({
        queue: 'slow',
        leaseMs,
        async handle() {
          runs++;
          await events.until(() => released);
        },
      });
      const renewing = withQueue(storage, {
        renew: async (c, id, attempt, ms) => {
          await storage.queue.renew(c, id, attempt, ms);
          renewals++;
          events.changed();
        },
      });
      const afterARenewal = withQueue(storage, {
        claim: async (c, queue, workerId, ms) => {
          const seen = renewals;
          await events.until(() => released || renewals > seen);
          const claimed = await storage.queue.claim(c, queue, workerId, ms);
          if (claimed !== undefined) takenByB = true;
          else if (!released) emptyClaimsByB++;
          events.changed();
          return claimed;
        },
      });
      const job = await storage.queue.enqueue(ctx, { queue: 'slow', payload: null });
      const a = pool([handler], { workerId: 'a', concurrency: 1 }, renewing);
      try {
        await events.until(() => renewals >= 4);
        const b = pool([handler], { workerId: 'b', concurrency: 1 }, afterARenewal);
        await events.until(() => takenByB || emptyClaimsByB >= 2);
        expect(takenByB).toBe(false);
        released = true;
        events.changed();
        await waitFor(() => a.stats.completed === 1, 10_000, 'completion');
        expect(runs).toBe(1);
        expect(b.stats.claimed).toBe(0);
        expect(await storage.queue.get(ctx, job.id)).toMatchObject({ state: 'completed', attempt: 1 });
      } finally {
        released = true;
        events.changed();
      }
    });

    it('retries a failing job with backoff, then dead-letters it', async () => {
      const attempts: number[] = [];
      const handler = defineQueueHandler({
        queue: 'flaky',
        leaseMs: 1000,
        backoff: { initialMs: 40, jitter: 0 },
        async handle(_ctx, job) {
          attempts.push(Date.now());
          throw new Error(`boom ${job.attempt}`);
        },
      });
      const job = await storage.queue.enqueue(ctx, { queue: 'flaky', payload: null, maxAttempts: 3 });
      const p = pool([handler]);
      await waitFor(async () => (await storage.queue.get(ctx, job.id))?.state === 'failed', 10_000, 'dead-letter');
      expect(await storage.queue.get(ctx, job.id)).toMatchObject({ state: 'failed', attempt: 3, lastError: 'boom 3' });
      expect(attempts).toHaveLength(3);
      // 40 ms, then 80 ms (exponential); the poll interval and scheduling only add to them.
      expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(35);
      expect(attempts[2]! - attempts[1]!).toBeGreaterThanOrEqual(75);
      expect(p.stats.failed).toBe(3);
    });

    it('fences a stale worker: its effect rolls back and the new attempt commits exactly once', async () => {
      // Worker a stops heartbeating (paused), its lease lapses, b takes the job and commits; when a
      // wakes up its commit is fenced and rolled back.
      let aCommitError: unknown;
      const slowOnA = defineQueueHandler({
        queue: 'effects',
        leaseMs: 100,
        async handle(jobCtx, job) {
          if (jobCtx.workerId === 'a') await sleep(500);
          try {
            await jobCtx.commit((tx) => tx.resources.create(jobCtx, `accounts/t/effects/${job.id}-${job.attempt}`, { jobId: job.id, by: jobCtx.workerId }));
          } catch (error) {
            if (jobCtx.workerId === 'a') aCommitError = error;
            throw error;
          }
          return undefined;
        },
      });
      const job = await storage.queue.enqueue(ctx, { queue: 'effects', payload: null });
      const a = pool([slowOnA], { workerId: 'a', concurrency: 1 }, withoutRenewals(storage));
      await waitFor(() => a.stats.claimed === 1, 5000, 'a to claim');
      await sleep(150);
      const b = pool([slowOnA], { workerId: 'b', concurrency: 1 });
      await waitFor(() => b.stats.completed === 1, 5000, 'b to complete');
      await waitFor(() => a.stats.lost === 1, 5000, 'a to be fenced out');
      expect(aCommitError).toMatchObject({ code: 'ABORTED', reason: 'STALE_ATTEMPT' });
      expect(await effectCount(storage, job.id)).toBe(1);
      expect(await storage.queue.get(ctx, job.id)).toMatchObject({ state: 'completed', attempt: 2 });
    });

    it('commitJobEffects rolls back a stale attempt, whether fenced first or at completion', async () => {
      for (const leaseMs of [undefined, 1000]) {
        const job = await storage.queue.enqueue(ctx, { queue: `direct-${leaseMs ?? 0}`, payload: null });
        const first = (await storage.queue.claim(ctx, job.queue, 'a', 30)) as ClaimedJob;
        await sleep(60);
        const second = (await storage.queue.claim(ctx, job.queue, 'b', 5000)) as ClaimedJob;
        expect(second.attempt).toBe(2);
        let effectRan = false;
        const write = (claim: ClaimedJob) =>
          commitJobEffects(
            storage,
            ctx,
            claim,
            async (tx) => {
              effectRan = true;
              await tx.resources.create(ctx, `accounts/t/effects/${claim.id}-${claim.attempt}`, { jobId: claim.id });
              return claim.attempt;
            },
            { ...(leaseMs === undefined ? {} : { leaseMs }), result: (attempt) => ({ attempt }) },
          );
        await expect(write(first)).rejects.toMatchObject({ code: 'ABORTED', reason: 'STALE_ATTEMPT' });
        // Fenced first: the effect never runs. Fenced at completion: it ran and rolled back.
        expect(effectRan).toBe(leaseMs === undefined);
        expect(await effectCount(storage, job.id)).toBe(0);
        await expect(write(second)).resolves.toBe(2);
        expect(await effectCount(storage, job.id)).toBe(1);
        expect(await storage.queue.get(ctx, job.id)).toMatchObject({ state: 'completed', attempt: 2, result: { attempt: 2 } });
      }
    });

    it('exactly-once handlers commit their effect with the completion, and roll it back on failure', async () => {
      let calls = 0;
      const handler = defineQueueHandler({
        queue: 'tx',
        effects: 'exactly-once',
        leaseMs: 1000,
        backoff: { initialMs: 10, jitter: 0 },
        async handle(jobCtx, job, tx) {
          calls++;
          await tx.resources.create(jobCtx, `accounts/t/effects/${job.id}-${job.attempt}`, { jobId: job.id });
          if (job.attempt === 1) throw new Error('fails after writing');
          return { ok: true };
        },
      });
      const job = await storage.queue.enqueue(ctx, { queue: 'tx', payload: null });
      const p = pool([handler]);
      await waitFor(() => p.stats.completed === 1, 5000, 'completion');
      expect(calls).toBe(2);
      expect(await effectCount(storage, job.id)).toBe(1);
      expect(await storage.queue.get(ctx, job.id)).toMatchObject({ state: 'completed', attempt: 2, result: { ok: true }, lastError: 'fails after writing' });
    });

    it('stop claims nothing more and waits for the running job', async () => {
      let finished = 0;
      const handler = defineQueueHandler({
        queue: 'drain',
        leaseMs: 1000,
        async handle() {
          await sleep(200);
          finished++;
        },
      });
      const first = await storage.queue.enqueue(ctx, { queue: 'drain', payload: null });
      const p = pool([handler], { concurrency: 1 });
      await waitFor(() => p.stats.claimed === 1, 5000, 'claim');
      const second = await storage.queue.enqueue(ctx, { queue: 'drain', payload: null });
      await p.stop();
      expect(finished).toBe(1);
      expect(await storage.queue.get(ctx, first.id)).toMatchObject({ state: 'completed' });
      await sleep(80);
      expect(await storage.queue.get(ctx, second.id)).toMatchObject({ state: 'queued', attempt: 0 });
    });

    it('stop gives up after its timeout: the handler sees its signal abort and the lease is left to expire', async () => {
      let aborted = false;
      const handler = defineQueueHandler({
        queue: 'stuck',
        leaseMs: 1000,
        async handle(jobCtx) {
          await new Promise<void>((resolve) => jobCtx.signal.addEventListener('abort', () => resolve()));
          aborted = true;
          await sleep(1000);
        },
      });
      const job = await storage.queue.enqueue(ctx, { queue: 'stuck', payload: null });
      const p = pool([handler], { stopTimeoutMs: 100 });
      await waitFor(() => p.stats.claimed === 1, 5000, 'claim');
      await p.stop();
      expect(aborted).toBe(true);
      expect(await storage.queue.get(ctx, job.id)).toMatchObject({ state: 'leased', attempt: 1 });
    });

    it('claims nothing from a paused handler’s queue, and resumes when it unpauses', async () => {
      let paused = true;
      let runs = 0;
      const handler = defineQueueHandler({ queue: 'paused', paused: () => paused, handle: async () => void (runs += 1) });
      const job = await storage.queue.enqueue(ctx, { queue: 'paused', payload: null });
      const p = pool([handler], { concurrency: 2 });
      await sleep(120);
      expect(p.stats.claimed).toBe(0);
      expect(await storage.queue.get(ctx, job.id)).toMatchObject({ state: 'queued', attempt: 0 });
      paused = false;
      await waitFor(() => p.stats.completed === 1, 5000, 'the job to run');
      expect(runs).toBe(1);
    });

    for (const adapter of ['with', 'without'] as const) {
      it(`gives back, unstarted, a job whose claim was in flight when stop began (adapter ${adapter} JobQueue.release)`, async ({ skip }) => {
        if (adapter === 'with' && storage.queue.release === undefined) return skip('this adapter has no JobQueue.release');
        let runs = 0;
        const handler = defineQueueHandler({ queue: 'late', handle: async () => void (runs += 1) });
        // The pool's first claim waits until the test has begun stopping the pool, then claims for real.
        let claimEntered = false;
        let openClaim: () => void = () => undefined;
        const claimGate = new Promise<void>((resolve) => (openClaim = resolve));
        const gated = withQueue(storage, {
          claim: async (c, q, w, l) => {
            claimEntered = true;
            await claimGate;
            return storage.queue.claim(c, q, w, l);
          },
        });
        const on = adapter === 'with' ? gated : { ...gated, queue: { ...gated.queue, release: undefined } };
        const job = await storage.queue.enqueue(ctx, { queue: 'late', payload: null, maxAttempts: 3 });
        const p = pool([handler], { concurrency: 1 }, on);
        await waitFor(() => claimEntered, 5000, 'the claim to start');
        const stopped = p.stop();
        openClaim();
        await stopped;
        expect(runs).toBe(0);
        expect(p.stats).toMatchObject({ claimed: 1, released: 1, completed: 0, failed: 0 });
        const back = await storage.queue.get(ctx, job.id);
        expect(Date.parse(back?.runAt ?? '')).toBeLessThanOrEqual(Date.now());
        if (adapter === 'with') expect(back).toMatchObject({ state: 'queued', attempt: 0 });
        else expect(back).toMatchObject({ state: 'queued', attempt: 1, lastError: 'the worker stopped before running this attempt' });
      });
    }
  });
}
