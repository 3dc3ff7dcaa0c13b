import { retryDelayMs, type BackoffOptions } from '@berth/core';

/** When and how often a webhook is tried. Every value has a default; see {@link defaultDeliverySchedule}. */
export interface DeliveryScheduleOptions {
  /** Attempts in all, the first included (default 8). */
  readonly maxAttempts?: number;
  /** After this long since the event, no new attempt starts: the delivery fails (default 24 h). */
  readonly maxAgeMs?: number;
  /** Delays between attempts: exponential with jitter (default 5 s, ×4, at most 6 h, 20% jitter). */
  readonly backoff?: BackoffOptions;
  /** A receiver's `Retry-After` is honoured up to this long (default 1 h). */
  readonly maxRetryAfterMs?: number;
}

export type DeliverySchedule = Required<Omit<DeliveryScheduleOptions, 'backoff'>> & { readonly backoff: Required<BackoffOptions> };

export const defaultDeliverySchedule: DeliverySchedule = Object.freeze({
  maxAttempts: 8,
  maxAgeMs: 24 * 60 * 60 * 1000,
  backoff: Object.freeze({ initialMs: 5_000, multiplier: 4, maxMs: 6 * 60 * 60 * 1000, jitter: 0.2 }),
  maxRetryAfterMs: 60 * 60 * 1000,
});

/**
 * The schedule with `options` over the defaults, checked.
 * @throws Error naming the setting that is out of range
 */
export function resolveDeliverySchedule(options: DeliveryScheduleOptions = {}): DeliverySchedule {
  const schedule: DeliverySchedule = {
    maxAttempts: options.maxAttempts ?? defaultDeliverySchedule.maxAttempts,
    maxAgeMs: options.maxAgeMs ?? defaultDeliverySchedule.maxAgeMs,
    backoff: { ...defaultDeliverySchedule.backoff, ...options.backoff },
    maxRetryAfterMs: options.maxRetryAfterMs ?? defaultDeliverySchedule.maxRetryAfterMs,
  };
  if (!Number.isInteger(schedule.maxAttempts) || schedule.maxAttempts < 1 || schedule.maxAttempts > 100) {
    throw new Error('webhooks: maxAttempts must be an integer from 1 to 100');
  }
  for (const [name, value] of [
    ['maxAgeMs', schedule.maxAgeMs], ['maxRetryAfterMs', schedule.maxRetryAfterMs], ['backoff.initialMs', schedule.backoff.initialMs],
    ['backoff.maxMs', schedule.backoff.maxMs],
  ] as const) {
    if (!Number.isFinite(value) || value < 0) throw new Error(`webhooks: ${name} must be a non-negative number of milliseconds`);
  }
  if (!(schedule.backoff.multiplier >= 1)) throw new Error('webhooks: backoff.multiplier must be at least 1');
  if (!(schedule.backoff.jitter >= 0 && schedule.backoff.jitter <= 1)) throw new Error('webhooks: backoff.jitter must be from 0 to 1');
  return schedule;
}

/**
 * A `Retry-After` value in milliseconds from `nowMs`: delay-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`; a date in the past is 0). Anything else is undefined (ignored).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date has a weekday, a day, a month and a time; Date.parse also takes the obsolete forms.
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * When the attempt after failed attempt number `attempt` (1-based) starts, or undefined when none may:
 * the attempts are used up or the next one would start after `expireAtMs` (the delivery's maximum age). The delay is
 * the exponential backoff with jitter, or the receiver's `Retry-After` (capped at `maxRetryAfterMs`)
 * when that is longer.
 */
export function nextAttemptTime(
  schedule: DeliverySchedule,
  attempt: number,
  failedAtMs: number,
  expireAtMs: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= schedule.maxAttempts) return undefined;
  const backoff = retryDelayMs(attempt, schedule.backoff, random);
  const delay = retryAfterMs === undefined ? backoff : Math.max(backoff, Math.min(retryAfterMs, schedule.maxRetryAfterMs));
  const next = failedAtMs + delay;
  return next > expireAtMs ? undefined : next;
}
