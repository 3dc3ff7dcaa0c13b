import { describe, expect, it } from 'vitest';
import { AttachedRunners } from './attached-runners.js';

describe('AttachedRunners', () => {
  it('uses the first attached until it detaches, then the next; none when all detached', () => {
    const runners = new AttachedRunners<string>();
    expect(runners.current).toBeUndefined();
    const detachA = runners.attach('a');
    const detachB = runners.attach('b');
    expect(runners.current).toBe('a');
    detachA();
    expect(runners.current).toBe('b');
    detachA();
    expect(runners.current).toBe('b');
    detachB();
    expect(runners.current).toBeUndefined();
  });

  it('is closed once everything attached detached, not before anything was attached', () => {
    const runners = new AttachedRunners<string>();
    expect(runners.closed).toBe(false);
    const detachA = runners.attach('a');
    const detachB = runners.attach('b');
    detachA();
    expect(runners.closed).toBe(false);
    detachB();
    expect(runners.closed).toBe(true);
    runners.attach('c');
    expect(runners.closed).toBe(false);
  });

  it('whenAttached answers the runner in use, the first attached within the wait, or undefined', async () => {
    const runners = new AttachedRunners<string>();
    const waiting = runners.whenAttached(undefined, 5000);
    const alsoWaiting = runners.whenAttached(undefined, 5000);
    const detach = runners.attach('a');
    expect(await waiting).toBe('a');
    expect(await alsoWaiting).toBe('a');
    expect(await runners.whenAttached(undefined, 0)).toBe('a');
    detach();
    // Closed (everything attached has detached): no wait.
    const started = Date.now();
    expect(await runners.whenAttached(undefined, 5000)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);

    const fresh = new AttachedRunners<string>();
    expect(await fresh.whenAttached(undefined, 20)).toBeUndefined();
    const stop = new AbortController();
    const aborted = fresh.whenAttached(stop.signal, 60_000);
    stop.abort();
    expect(await aborted).toBeUndefined();
    fresh.attach('late');
    expect(await fresh.whenAttached(undefined, 0)).toBe('late');
  });
});
