import { defineQueueHandler, type ExactlyOnceQueueHandler } from '../../workers/queue-handler.js';
import type { Deployment } from './deployment-schema.js';
import type { Clock } from '../../ports/clock.js';

/** Durable queue of purges: one job per soft delete, due at the deployment's purgeTime. */
export const deploymentPurgeQueue = 'berth.deployments.purge';

/** A soft-deleted deployment past its purgeTime: gone for every read, whether or not a worker removed it yet. */
export function isPurged(deployment: Pick<Deployment, 'state' | 'purgeTime'>, nowMs: number): boolean {
  return deployment.state === 'DELETED' && deployment.purgeTime !== undefined && Date.parse(deployment.purgeTime) <= nowMs;
}

/** The job a soft delete enqueues; the dedupe key includes purgeTime so a later delete gets its own job. */
export function purgeJobFor(name: string, purgeTime: string) {
  return { queue: deploymentPurgeQueue, payload: { name, purgeTime }, runAt: new Date(purgeTime), dedupeKey: `${name}@${purgeTime}` };
}

/**
 * Removes a soft-deleted deployment once its purgeTime has passed, in the same transaction as the job's
 * completion. A deployment restored with :undelete, or deleted again with a later purgeTime, is left alone.
 * Contributed to the queue handlers with the clock as a declared dependency.
 */
export function deploymentPurgeHandler(clock: Clock): ExactlyOnceQueueHandler {
  return defineQueueHandler({
    queue: deploymentPurgeQueue,
    effects: 'exactly-once',
    async handle(ctx, job, tx) {
      const { name } = job.payload as { name: string };
      const current = await tx.resources.get(ctx, name);
      if (!current || !isPurged(current.data, clock.now().getTime())) return { purged: false };
      await tx.resources.delete(ctx, name, current.etag);
      return { purged: true };
    },
  });
}
