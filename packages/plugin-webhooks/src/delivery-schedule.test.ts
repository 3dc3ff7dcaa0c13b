import { describe, expect, it } from 'vitest';
import { nextAttemptTime, parseRetryAfter, resolveDeliverySchedule } from './delivery-schedule.js';

const now = Date.parse('2026-11-23T18:00:00.000Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP-dates, and ignores anything else', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Mon, 23 Nov 2026 18:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 17:00:00 GMT', now)).toBe(0);
    for (const ignored of [undefined, '', '-5', '1.5', 'soon', '2026-11-23T18:05:00Z', 'Mon, 99 Foo 2026 18:01:30 GMT']) {
      expect(parseRetryAfter(ignored, now), String(ignored)).toBeUndefined();
    }
  });
});

describe('nextAttemptTime', () => {
  const schedule = resolveDeliverySchedule({ maxAttempts: 5, backoff: { initialMs: 1000, multiplier: 2, maxMs: 60_000, jitter: 0.2 }, maxRetryAfterMs: 30_000 });
  const far = now + 86_400_000;

  it('backs off exponentially, with a jitter inside its bounds', () => {
    expect([1, 2, 3, 4].map((a) => nextAttemptTime(schedule, a, now, far, undefined, () => 1)! - now)).toEqual([1000, 2000, 4000, 8000]);
    expect([1, 2, 3, 4].map((a) => nextAttemptTime(schedule, a, now, far, undefined, () => 0)! - now)).toEqual([800, 1600, 3200, 6400]);
  });

  it('honours a longer Retry-After up to its cap, never a shorter one', () => {
    expect(nextAttemptTime(schedule, 1, now, far, 20_000, () => 1)! - now).toBe(20_000);
    expect(nextAttemptTime(schedule, 1, now, far, 3_600_000, () => 1)! - now).toBe(30_000);
    expect(nextAttemptTime(schedule, 3, now, far, 10, () => 1)! - now).toBe(4000);
  });

  it('stops after the last attempt and when the next one would start after the expiry', () => {
    expect(nextAttemptTime(schedule, 5, now, far, undefined)).toBeUndefined();
    expect(nextAttemptTime(schedule, 4, now, now + 1000, undefined, () => 1)).toBeUndefined();
    expect(nextAttemptTime(schedule, 1, now, now + 1000, undefined, () => 1)).toBe(now + 1000);
  });

  it('refuses settings out of range', () => {
    expect(() => resolveDeliverySchedule({ maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => resolveDeliverySchedule({ maxAgeMs: -1 })).toThrow(/maxAgeMs/);
    expect(() => resolveDeliverySchedule({ backoff: { jitter: 2 } })).toThrow(/jitter/);
    expect(() => resolveDeliverySchedule({ backoff: { multiplier: 0.5 } })).toThrow(/multiplier/);
  });
});
