import type { JsonValue, StorageTransaction, RequestContext } from '@berth/core';
import { invalidArgument } from '@berth/core';

/** The durable queue every delivery attempt runs on. */
export const webhookQueue = 'berth.webhooks';

/** A queued attempt: which delivery, which attempt number. */
export interface AttemptJob {
  readonly delivery: string;
  readonly attempt: number;
}

export function attemptJobOf(payload: JsonValue): AttemptJob {
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    const { delivery, attempt } = payload;
    if (typeof delivery === 'string' && typeof attempt === 'number' && Number.isInteger(attempt) && attempt >= 1) return { delivery, attempt };
  }
  throw invalidArgument('not a webhook attempt job', { reason: 'WEBHOOK_JOB_INVALID' });
}

/**
 * Queues attempt `attempt` of `delivery` through `tx` at `runAt`. The dedupe key makes a repeated enqueue
 * (a worker that retries its commit) the same job. Queue-level retries (the worker itself failing, not
 * the receiver) are bounded separately by `maxAttempts`.
 */
export function enqueueAttempt(ctx: RequestContext, tx: StorageTransaction, job: AttemptJob, runAt?: Date): Promise<unknown> {
  return tx.queue.enqueue(ctx, {
    queue: webhookQueue,
    payload: { delivery: job.delivery, attempt: job.attempt },
    dedupeKey: `${job.delivery}#${String(job.attempt)}`,
    maxAttempts: 20,
    ...(runAt === undefined ? {} : { runAt }),
  });
}
