import { sweepOrphanBlobs, type BlobOwnerRule } from '../../blobs/blob-sweep.js';
import type { Clock } from '../../ports/clock.js';
import type { EnqueueRequest } from '../../ports/storage.js';
import { defineQueueHandler, type AtLeastOnceQueueHandler } from '../../workers/queue-handler.js';

/** Durable queue of the blob sweep: one job per interval slot, each enqueuing the next. */
export const blobSweepQueue = 'berth.blobs.sweep';

export interface FileSweepOptions {
  /** Time between runs. Default 1 hour. */
  readonly intervalMs: number;
  /** Objects younger than this are left alone. Default 1 hour. */
  readonly graceMs: number;
  /** Most orphaned objects one run deletes. Default 1000. */
  readonly maxDeletes: number;
}

export const defaultFileSweepOptions: FileSweepOptions = { intervalMs: 3_600_000, graceMs: 3_600_000, maxDeletes: 1000 };

/** `<collection>/<account>/<id>/<file…>` belongs to `accounts/<account>/<collection>/<id>`. */
function ownerRule(collection: 'models' | 'datasets'): BlobOwnerRule {
  return {
    prefix: `${collection}/`,
    ownerOf(key) {
      const [top, account, id, ...file] = key.split('/');
      return top === collection && account && id && file.length > 0 ? `accounts/${account}/${collection}/${id}` : undefined;
    },
  };
}

/** Model files (`model-files.ts`) and dataset files (`DatasetFileService`) are owned by their resource. */
export const fileOwnerRules: readonly BlobOwnerRule[] = [ownerRule('models'), ownerRule('datasets')];

/**
 * The job of the first run due after `afterMs`: runs start on interval boundaries, and the dedupe key
 * names the boundary, so every gateway instance (and every restart) asking for the same run makes one job.
 */
export function fileSweepJob(afterMs: number, intervalMs: number): EnqueueRequest {
  const slot = Math.floor(afterMs / intervalMs) + 1;
  return { queue: blobSweepQueue, payload: { slot }, runAt: new Date(slot * intervalMs), dedupeKey: `slot-${slot}` };
}

/**
 * The scheduled sweep of model and dataset files (`sweepOrphanBlobs`), run by the queue workers: first
 * enqueues the next run (so a failing sweep does not end the schedule), then deletes at most `maxDeletes`
 * objects whose model or dataset is gone and were written more than `graceMs` ago, then lets the store
 * remove what unfinished writes left. Idempotent, so at-least-once.
 */
export function fileSweepHandler(clock: Clock, options: FileSweepOptions = defaultFileSweepOptions): AtLeastOnceQueueHandler {
  return defineQueueHandler({
    queue: blobSweepQueue,
    async handle(ctx) {
      const now = clock.now().getTime();
      await ctx.storage.queue.enqueue(ctx, fileSweepJob(now, options.intervalMs));
      const result = await sweepOrphanBlobs(ctx, ctx.storage.blobs, ctx.storage.resources, fileOwnerRules, {
        olderThan: new Date(now - options.graceMs), maxDeletes: options.maxDeletes,
      });
      if (result.orphansDeleted > 0 || result.abandonedWrites > 0) {
        ctx.logger.info({ orphansDeleted: result.orphansDeleted, abandonedWrites: result.abandonedWrites, more: result.more }, 'blob sweep');
      }
      return { orphansDeleted: result.orphansDeleted, abandonedWrites: result.abandonedWrites, more: result.more };
    },
  });
}
