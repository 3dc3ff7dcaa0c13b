import { describe, expect, it } from 'vitest';
import type { GatewayLogger } from '../ports/logger.js';
import { StaleRead } from './reconciler-model.js';
import { PassScheduler } from './reconciler-passes.js';

/** A pass that waits until the test lets it finish, counting runs and overlaps per name. */
function setup(run: (name: string, runs: number) => void = () => {}) {
  const runs = new Map<string, number>();
  const warnings: string[] = [];
  let active = 0;
  let maxActive = 0;
  let release: (() => void) | undefined;
  let gate = Promise.resolve();
  let stopped = false;
  const logger: GatewayLogger = { debug() {}, info() {}, warn: (_obj, msg) => void warnings.push(String(msg)), error() {} };
  const scheduler = new PassScheduler(
    async (name) => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      const count = (runs.get(name) ?? 0) + 1;
      runs.set(name, count);
      try {
        await gate;
        run(name, count);
      } finally {
        active -= 1;
      }
    },
    logger,
    () => stopped,
  );
  return {
    scheduler,
    runs,
    warnings,
    maxActive: () => maxActive,
    hold: () => {
      gate = new Promise((resolve) => (release = resolve));
    },
    release: () => release?.(),
    stop: () => void (stopped = true),
  };
}

describe('PassScheduler', () => {
  it('never overlaps passes of one deployment and coalesces requests made meanwhile into one more pass', async () => {
    const t = setup();
    t.hold();
    t.scheduler.schedule('a');
    await Promise.resolve();
    await Promise.resolve();
    t.scheduler.schedule('a');
    t.scheduler.schedule('a');
    t.scheduler.schedule('a');
    t.release();
    await t.scheduler.idle('a');
    expect(t.runs.get('a')).toBe(2);
    expect(t.maxActive()).toBe(1);
  });

  it('runs passes of different deployments concurrently', async () => {
    const t = setup();
    t.hold();
    t.scheduler.schedule('a');
    t.scheduler.schedule('b');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(t.maxActive()).toBe(2);
    t.release();
    await t.scheduler.allIdle();
    expect([...t.runs.entries()]).toEqual([['a', 1], ['b', 1]]);
  });

  it('repeat, called from a pass, runs it once more', async () => {
    const t = setup((name, runs) => {
      if (runs < 3) t.scheduler.repeat(name);
    });
    t.scheduler.schedule('a');
    await t.scheduler.idle('a');
    expect(t.runs.get('a')).toBe(3);
  });

  it('runs a pass that read a stale deployment again at once; logs other errors and waits', async () => {
    const t = setup((name, runs) => {
      if (name === 'stale' && runs === 1) throw new StaleRead();
      if (name === 'broken') throw new Error('boom');
    });
    t.scheduler.schedule('stale');
    t.scheduler.schedule('broken');
    await t.scheduler.allIdle();
    expect(t.runs.get('stale')).toBe(2);
    expect(t.runs.get('broken')).toBe(1);
    expect(t.warnings).toEqual(['reconcile pass failed']);
  });

  it('repeats nothing once stopped', async () => {
    const t = setup((name) => {
      t.stop();
      t.scheduler.repeat(name);
    });
    t.scheduler.schedule('a');
    await t.scheduler.idle('a');
    expect(t.runs.get('a')).toBe(1);
  });
});
