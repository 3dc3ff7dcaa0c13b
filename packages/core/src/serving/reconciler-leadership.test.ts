import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStorage } from '../testing/index.js';
import { silentLogger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import { ReconcilerLeadership } from './reconciler-leadership.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function instance(storage: Storage, id: string, leaseMs = 120) {
  const events: string[] = [];
  const leadership = new ReconcilerLeadership(storage, silentLogger, { leaseMs, instanceId: id });
  const callbacks = {
    acquired: async () => {
      events.push('acquired');
    },
    lost: async () => {
      events.push('lost');
    },
  };
  return { leadership, events, start: () => leadership.start(callbacks) };
}

const started: ReconcilerLeadership[] = [];
afterEach(async () => {
  for (const l of started.splice(0)) await l.stop();
});

describe('reconciler leadership (fenced lease in the job queue)', () => {
  it('exactly one of two instances leads', async () => {
    const storage = new MemoryStorage();
    const a = instance(storage, 'a');
    const b = instance(storage, 'b');
    started.push(a.leadership, b.leadership);
    await a.start();
    await b.start();
    await sleep(300);
    expect(a.leadership.isLeader).toBe(true);
    expect(b.leadership.isLeader).toBe(false);
    expect(a.events).toEqual(['acquired']);
    expect(b.events).toEqual([]);
  });

  it('a leader that stops hands over at once', async () => {
    const storage = new MemoryStorage();
    const a = instance(storage, 'a', 60_000);
    const b = instance(storage, 'b', 60_000);
    started.push(b.leadership);
    await a.start();
    await b.start();
    expect(b.leadership.isLeader).toBe(false);
    await a.leadership.stop();
    await b.leadership.tick();
    expect(b.leadership.isLeader).toBe(true);
    expect(b.events).toEqual(['acquired']);
  });

  it('a leader that stalls past its lease is replaced, and learns it lost when it wakes', async () => {
    const storage = new MemoryStorage();
    const a = instance(storage, 'a', 100);
    const b = instance(storage, 'b', 100);
    started.push(a.leadership, b.leadership);
    await a.start();
    // Stall a: stop its background renewals without handing the lease back.
    clearInterval(Reflect.get(a.leadership, 'timer') as ReturnType<typeof setInterval>);
    await b.start();
    expect(b.leadership.isLeader).toBe(false);
    await sleep(150);
    await b.leadership.tick();
    expect(b.leadership.isLeader).toBe(true);
    await a.leadership.tick();
    expect(a.leadership.isLeader).toBe(false);
    expect(a.events).toEqual(['acquired', 'lost']);
  });
});
