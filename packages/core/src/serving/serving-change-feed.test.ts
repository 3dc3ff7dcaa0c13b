import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../testing/index.js';
import { silentLogger } from '../ports/logger.js';
import { ServingChangeConsumer, servingChangesTopic } from './serving-change-feed.js';
import { systemContext } from '../contracts/request-context.js';

describe('serving change feed consumer', () => {
  it('hands each changed deployment to the reconciler once, acknowledges, and prunes by retention', async () => {
    const storage = new MemoryStorage();
    const ctx = systemContext('t');
    await storage.outbox.publish(ctx, servingChangesTopic, { deployment: 'accounts/a/deployments/x' });
    await storage.outbox.publish(ctx, 'other.topic', { deployment: 'accounts/a/deployments/ignored' });
    await storage.outbox.publish(ctx, servingChangesTopic, { deployment: 'accounts/a/deployments/y' });
    const seen: string[] = [];
    let now = Date.now();
    const consumer = new ServingChangeConsumer(storage.outbox, (d) => seen.push(d), silentLogger, 60_000, () => now);
    await consumer.poll();
    expect(seen).toEqual(['accounts/a/deployments/x', 'accounts/a/deployments/y']);
    await consumer.poll();
    expect(seen).toHaveLength(2);
    now += 2 * 3600_000;
    await consumer.poll();
    expect(await storage.outbox.poll(ctx, 'fresh-consumer', 10)).toEqual([]);
    await consumer.stop();
  });
});
