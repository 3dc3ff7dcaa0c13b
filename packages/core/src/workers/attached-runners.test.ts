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
});
