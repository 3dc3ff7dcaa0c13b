import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../testing/index.js';
import { systemContext } from '../kernel/request-context.js';
import { defineQueueHandler } from './queue-handler.js';
import { QueueWorkerPool } from './queue-worker-pool.js';
import { waitFor } from '../testing/queue-worker-scenarios.js';

describe('a closing instance hands its leased jobs back', () => {
  it('a job still running when the pool stops is due at once, and another pool claims it without waiting for the lease or a backoff', async () => {
    const storage = new MemoryStorage();
    const ctx = systemContext('test');
    let started = false;
    const first = new QueueWorkerPool({
      storage, pollIntervalMs: 10, stopTimeoutMs: 20, workerId: 'closing',
      handlers: [defineQueueHandler({
        queue: 'hand-back', leaseMs: 600_000, backoff: { initialMs: 600_000 },
        handle: (jobCtx) => new Promise((_, reject) => {
          started = true;
          jobCtx.signal.addEventListener('abort', () => reject(new Error('stopped')));
        }),
      })],
    });
    const job = await storage.queue.enqueue(ctx, { queue: 'hand-back', payload: {} });
    first.start();
    await waitFor(() => started);
    await first.stop();
    await waitFor(async () => (await storage.queue.get(ctx, job.id))?.state === 'queued');
    const handedBack = await storage.queue.get(ctx, job.id);
    expect(Date.parse(handedBack!.runAt)).toBeLessThanOrEqual(Date.now());
    // A lease of 10 minutes and a backoff of 10 minutes: only a hand-back lets this claim succeed now.
    const next = await storage.queue.claim(ctx, 'hand-back', 'other-instance', 60_000);
    expect(next).toMatchObject({ id: job.id, attempt: 2, workerId: 'other-instance' });
  });
});
