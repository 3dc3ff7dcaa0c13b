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
});
