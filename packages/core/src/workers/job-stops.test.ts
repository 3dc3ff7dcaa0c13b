import { describe, expect, it } from 'vitest';
import { systemContext } from '../kernel/request-context.js';
import type { ClaimedJob } from '../ports/storage.js';
import { MemoryStorage } from '../storage-memory/index.js';
import { waitFor } from '../testing/queue-worker-scenarios.js';
import { AttachedClientJobRunner } from './job-stops.js';
import type { QueueJobContext } from './queue-handler.js';
import { QueueWorkerPool } from './queue-worker-pool.js';

/** A runner like the batch and fine-tuning ones: records which client each job ran with. */
class RecordingRunner extends AttachedClientJobRunner<string> {
  readonly ranWith: (string | undefined)[] = [];

  constructor() {
    super('recording', {}, 'recording-hand-over');
  }

  protected async handleJob(_ctx: QueueJobContext, _job: ClaimedJob, _name: string): Promise<void> {
    this.ranWith.push(this.clients.current);
  }
}

describe('AttachedClientJobRunner', () => {
  it('runs a job claimed before its client attached (just after a start) with that client, in the same attempt', async () => {
    const storage = new MemoryStorage();
    const runner = new RecordingRunner();
    const job = await storage.queue.enqueue(systemContext(), { queue: 'recording', payload: { name: 'accounts/a/jobs/j' } });
    const pool = new QueueWorkerPool({ storage, handlers: [runner.handler], pollIntervalMs: 10 });
    pool.start();
    try {
      await waitFor(() => pool.stats.claimed === 1, 10_000, 'the job to be claimed');
      const detach = runner.attach('proxy');
      await waitFor(() => pool.stats.completed === 1, 10_000, 'the job to run');
      expect(runner.ranWith).toEqual(['proxy']);
      expect(await storage.queue.get(systemContext(), job.id)).toMatchObject({ state: 'completed', attempt: 1 });
      // Once detached (the server closing), the queue is paused.
      expect(runner.handler.paused?.()).toBe(false);
      detach();
      expect(runner.handler.paused?.()).toBe(true);
    } finally {
      await pool.stop();
    }
  });
});
