import { describe, expect, it } from 'vitest';
import { QueueWakeups } from './queue-wakeups.js';

describe('QueueWakeups', () => {
  it('pokes every subscribed pool until it unsubscribes', () => {
    const wakeups = new QueueWakeups();
    const pokes: string[] = [];
    const stopA = wakeups.subscribe(() => pokes.push('a'));
    wakeups.subscribe(() => pokes.push('b'));
    wakeups.wake();
    stopA();
    wakeups.wake();
    expect(pokes).toEqual(['a', 'b', 'b']);
  });
});
