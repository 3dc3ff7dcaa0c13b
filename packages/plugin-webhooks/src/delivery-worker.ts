import {
  clockMs, defineQueueHandler, inSpan, SpanKind, storedOf, type AtLeastOnceQueueHandler, type Clock, type EgressHttp, type QueueHandlerResult, type QueueJobContext, type StorageTransaction, type Telemetry,
} from '@berth/core';
import { sendAttempt, type AttemptOptions, type AttemptResult } from './delivery-attempt.js';
import { nextAttemptTime, parseRetryAfter, type DeliverySchedule } from './delivery-schedule.js';
import type { StoredWebhookDelivery, WebhookAttempt } from './webhook-delivery-schema.js';
import { attemptJobOf, enqueueAttempt, webhookQueue, type AttemptJob } from './webhook-queue.js';

export interface DeliveryWorkerOptions extends AttemptOptions {
  readonly schedule: DeliverySchedule;
  /** The random part of each backoff delay (tests fix it). */
  readonly random: () => number;
  /** Hears each committed attempt's outcome. */
  readonly telemetry?: Telemetry;
}

/** What an attempt changes on the delivery. */
interface Verdict {
  readonly attempt: WebhookAttempt;
  /** The time of the next attempt, or undefined when the delivery is over. */
  readonly next: number | undefined;
  readonly state: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  readonly failureReason?: string;
}

const seconds = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(3)}s`;

interface AttemptTimes {
  readonly startedMs: number;
  readonly endedMs: number;
  readonly durationMs: number;
}

function judge(result: AttemptResult, record: StoredWebhookDelivery, job: AttemptJob, times: AttemptTimes, schedule: DeliverySchedule, random: () => number): Verdict {
  const { startedMs, endedMs, durationMs } = times;
  const attemptTime = new Date(startedMs).toISOString();
  const base = { attempt: job.attempt, attemptTime, duration: seconds(durationMs) };
  const expireMs = Date.parse(record.expireTime ?? record.createTime);
  const retry = (attempt: WebhookAttempt, retryAfterMs: number | undefined): Verdict => {
    const next = nextAttemptTime(schedule, job.attempt, endedMs, expireMs, retryAfterMs, random);
    if (next !== undefined) return { attempt, next, state: 'PENDING' };
    const why = job.attempt >= schedule.maxAttempts ? `gave up after ${String(job.attempt)} attempts` : 'gave up: the delivery expired before the next attempt';
    return { attempt, next: undefined, state: 'FAILED', failureReason: `${why}; last: ${attempt.error ?? 'failed'}` };
  };
  if (result.kind === 'failed') {
    const attempt = { ...base, error: result.error };
    return result.permanent ? { attempt, next: undefined, state: 'FAILED', failureReason: result.error } : retry(attempt, undefined);
  }
  const { status } = result;
  if (status >= 200 && status < 300) return { attempt: { ...base, statusCode: status }, next: undefined, state: 'SUCCEEDED' };
  if (status === 410) {
    const error = 'the receiver answered 410 Gone: no more attempts';
    return { attempt: { ...base, statusCode: status, error }, next: undefined, state: 'FAILED', failureReason: error };
  }
  const error = status >= 300 && status < 400 ? `the receiver answered a redirect (${String(status)}), which is not followed` : `the receiver answered ${String(status)}`;
  return retry({ ...base, statusCode: status, error }, parseRetryAfter(result.retryAfter, endedMs));
}

/** The delivery after `verdict`, as stored. */
function applied(record: StoredWebhookDelivery, verdict: Verdict, nowIso: string): StoredWebhookDelivery {
  const { nextAttemptTime: _next, ...rest } = record;
  return {
    ...rest,
    state: verdict.state,
    attemptCount: verdict.attempt.attempt,
    attempts: [...(record.attempts ?? []), verdict.attempt],
    ...(verdict.next === undefined ? { completeTime: nowIso } : { nextAttemptTime: new Date(verdict.next).toISOString() }),
    ...(verdict.failureReason === undefined ? {} : { failureReason: verdict.failureReason }),
    updateTime: nowIso,
  };
}

/** Whether the job is still the delivery's next attempt (a repeated or stale job is skipped). */
function isDue(record: StoredWebhookDelivery | undefined, job: AttemptJob): record is StoredWebhookDelivery {
  return record !== undefined && record.state === 'PENDING' && (record.attemptCount ?? 0) === job.attempt - 1;
}

/**
 * The queue handler of webhook attempts: one job per attempt. It reads the delivery, sends the attempt
 * (outside any transaction), then, in one transaction fenced by the job's lease, records the attempt,
 * moves the delivery on (SUCCEEDED, FAILED or PENDING with its next time) and queues the next attempt.
 * A worker that dies after sending and before that commit leaves the job to be run again: the receiver
 * may then get the same webhook-id twice (at least once), and only the attempt that committed is recorded.
 */
export function deliveryWorker(egress: EgressHttp, clock: Clock, options: DeliveryWorkerOptions): AtLeastOnceQueueHandler {
  return defineQueueHandler({
    queue: webhookQueue,
    leaseMs: Math.max(30_000, options.timeoutMs * 3),
    backoff: { initialMs: 1_000, maxMs: 60_000 },
    async handle(ctx: QueueJobContext, claimed): Promise<QueueHandlerResult> {
      const job = attemptJobOf(claimed.payload);
      const found = await ctx.storage.resources.get(ctx, job.delivery);
      const record = found === undefined ? undefined : storedOf<StoredWebhookDelivery>(found).data;
      if (!isDue(record, job)) return 'skipped';
      const startedMs = clockMs(clock);
      let verdict: Verdict;
      if (record.expireTime !== undefined && startedMs > Date.parse(record.expireTime)) {
        // The gateway was down (or the queue behind) past the delivery's age: fail without sending.
        const error = 'the delivery expired before this attempt could start';
        verdict = { attempt: { attempt: job.attempt, attemptTime: new Date(startedMs).toISOString(), duration: seconds(0), error }, next: undefined, state: 'FAILED', failureReason: error };
      } else {
        const wallStart = performance.now();
        const send = () => sendAttempt(egress, ctx, { webhookId: record.webhookId ?? '', url: record.fullUrl, body: record.body, secret: record.signingSecret }, startedMs, options);
        const result = await inSpan('webhook delivery', { 'berth.webhook_id': record.webhookId ?? '', 'berth.attempt': job.attempt }, send, SpanKind.CLIENT);
        const times = { startedMs, endedMs: clockMs(clock), durationMs: performance.now() - wallStart };
        verdict = judge(result, record, job, times, options.schedule, options.random);
      }
      await ctx.commit(async (tx: StorageTransaction) => {
        const current = await tx.resources.getForUpdate(ctx, job.delivery);
        const latest = current === undefined ? undefined : storedOf<StoredWebhookDelivery>(current).data;
        if (current === undefined || !isDue(latest, job)) return;
        await tx.resources.update(ctx, job.delivery, applied(latest, verdict, clock.now().toISOString()), current.etag);
        if (verdict.next !== undefined) await enqueueAttempt(ctx, tx, { delivery: job.delivery, attempt: job.attempt + 1 }, new Date(verdict.next));
      }, () => verdict.state);
      const outcome = verdict.state === 'SUCCEEDED' ? 'delivered' : verdict.state === 'FAILED' ? 'dead-lettered' : 'retried';
      options.telemetry?.webhookDelivery({ outcome, ...(verdict.attempt.statusCode !== undefined ? { status: verdict.attempt.statusCode } : {}) });
      return verdict.state;
    },
  });
}
