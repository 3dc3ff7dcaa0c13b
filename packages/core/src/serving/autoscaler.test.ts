import { describe, expect, it } from 'vitest';
import { ManualClock } from '../testing/test-gateway.js';
import { autoscalingSettingsOf, decideReplicaCount, type AutoscalerState, type AutoscalingSettings } from './autoscaler.js';
import type { LoadSample } from './serving-load.js';

const settings: AutoscalingSettings = {
  minReplicaCount: 0,
  maxReplicaCount: 4,
  scaleUpWindowMs: 30_000,
  scaleDownWindowMs: 600_000,
  scaleToZeroWindowMs: 3_600_000,
  concurrentRequestsTarget: 2,
};

const idle: LoadSample = { peakConcurrency: 0, inFlight: 0, waiting: 0, lastRequestAtMs: undefined };
const busy = (concurrency: number, at: number): LoadSample => ({ peakConcurrency: concurrency, inFlight: concurrency, waiting: 0, lastRequestAtMs: at });

/** Feeds samples through the decision function on a manual clock, like the reconciler does. */
function run(s: AutoscalingSettings, desired: number) {
  const clock = new ManualClock();
  let state: AutoscalerState = {};
  let current = desired;
  return {
    clock,
    step(load: LoadSample, advanceMs = 0) {
      clock.advance(advanceMs);
      const decision = decideReplicaCount(s, { nowMs: clock.now().getTime(), desired: current, load }, state);
      state = decision.state;
      current = decision.desired;
      return decision;
    },
    set(value: number) {
      current = value;
    },
    now: () => clock.now().getTime(),
  };
}

describe('autoscalingSettingsOf', () => {
  it('reads bounds, windows and loadTargets.concurrent_requests, with API defaults', () => {
    expect(autoscalingSettingsOf({ minReplicaCount: 1, maxReplicaCount: 3, autoscalingPolicy: { scaleUpWindow: '5s', loadTargets: { concurrent_requests: 4 } } }, 8)).toEqual({
      minReplicaCount: 1,
      maxReplicaCount: 3,
      scaleUpWindowMs: 5000,
      scaleDownWindowMs: 600_000,
      scaleToZeroWindowMs: 3_600_000,
      concurrentRequestsTarget: 4,
    });
    expect(autoscalingSettingsOf({}, 8)).toMatchObject({ minReplicaCount: 0, maxReplicaCount: 1, concurrentRequestsTarget: 8 });
  });
});

describe('decideReplicaCount', () => {
  it('steady load inside the target changes nothing', () => {
    const a = run(settings, 1);
    expect(a.step(busy(2, a.now())).reason).toBe('steady');
    expect(a.step(busy(2, a.now()), 60_000)).toMatchObject({ desired: 1, reason: 'steady' });
  });

  it('scales up only after load stayed above target for scaleUpWindow', () => {
    const a = run(settings, 1);
    expect(a.step(busy(6, a.now())).desired).toBe(1);
    expect(a.step(busy(6, a.now()), 29_000).desired).toBe(1);
    expect(a.step(busy(6, a.now()), 1_000)).toMatchObject({ desired: 3, reason: 'scale-up' });
  });

  it('a dip below target restarts the scale-up window', () => {
    const a = run(settings, 1);
    a.step(busy(6, a.now()));
    a.step(busy(1, a.now()), 20_000);
    expect(a.step(busy(6, a.now()), 20_000).desired).toBe(1);
    expect(a.step(busy(6, a.now()), 30_000).desired).toBe(3);
  });

  it('never goes above maxReplicaCount', () => {
    const a = run({ ...settings, scaleUpWindowMs: 0 }, 1);
    expect(a.step(busy(100, a.now())).desired).toBe(4);
  });

  it('scales down after scaleDownWindow below target, not below max(min, 1)', () => {
    const a = run({ ...settings, minReplicaCount: 0 }, 4);
    a.step(busy(1, a.now()));
    expect(a.step(busy(1, a.now()), 599_000).desired).toBe(4);
    expect(a.step(busy(1, a.now()), 1_000)).toMatchObject({ desired: 1, reason: 'scale-down' });
  });

  it('cold start: at zero replicas a waiting request scales up at once', () => {
    const a = run(settings, 0);
    expect(a.step({ peakConcurrency: 1, inFlight: 0, waiting: 1, lastRequestAtMs: a.now() })).toMatchObject({ desired: 1, reason: 'cold-start' });
    const b = run(settings, 0);
    expect(b.step({ peakConcurrency: 5, inFlight: 0, waiting: 5, lastRequestAtMs: b.now() }).desired).toBe(3);
  });

  it('scales to zero after scaleToZeroWindow without requests when minReplicaCount is 0', () => {
    const a = run(settings, 1);
    const start = a.now();
    a.step(busy(1, start));
    expect(a.step({ ...idle, lastRequestAtMs: start }, 3_599_000).desired).toBe(1);
    expect(a.step({ ...idle, lastRequestAtMs: start }, 1_000)).toMatchObject({ desired: 0, reason: 'scale-to-zero' });
  });

  it('counts the window from first sight when no request was ever seen', () => {
    const a = run(settings, 1);
    a.step(idle);
    expect(a.step(idle, 3_599_999).desired).toBe(1);
    expect(a.step(idle, 1).desired).toBe(0);
  });

  it('does not scale to zero with minReplicaCount ≥ 1 or while requests are in flight', () => {
    const a = run({ ...settings, minReplicaCount: 1 }, 1);
    a.step(idle);
    expect(a.step(idle, 10_000_000).desired).toBe(1);
    const b = run(settings, 1);
    b.step(busy(1, b.now()));
    expect(b.step({ peakConcurrency: 1, inFlight: 1, waiting: 0, lastRequestAtMs: 0 }, 10_000_000).desired).toBe(1);
  });

  it('a manual :scale holds until load disagrees for a whole window, counted from the manual change', () => {
    const a = run(settings, 1);
    a.step(busy(1, a.now()));
    a.step(busy(1, a.now()), 500_000);
    a.set(3); // the user scaled to 3; the next decision notices it
    expect(a.step(busy(1, a.now()), 200_000).desired).toBe(3); // 700 s of low load, but the window restarts now
    expect(a.step(busy(1, a.now()), 599_000).desired).toBe(3);
    expect(a.step(busy(1, a.now()), 1_000)).toMatchObject({ desired: 1, reason: 'scale-down' });
  });

  it('clamps a desired count outside [min, max] at once', () => {
    const a = run({ ...settings, minReplicaCount: 2 }, 1);
    expect(a.step(idle)).toMatchObject({ desired: 2, reason: 'bounds' });
  });
});
