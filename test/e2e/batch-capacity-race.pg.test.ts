import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchCapacity, servingDirectoryToken, storageToken, systemContext, temporaryDeploymentRecords } from '@berth/core';
import type { JsonObject } from '@berth/core';
import { createTestGateway, principalContext, type TestGateway } from '@berth/core/testing';
import { postgresTestSchema, type PostgresTestSchema } from './postgres.js';

/**
 * Two gateways on one PostgreSQL schema race for a model's temporary deployment: jobs of the same model
 * provided through either instance at once share exactly one deployment (the `batch-capacity:<model>`
 * lock), and releases racing through both delete it exactly once.
 */
const account = 'acme';
const model = `accounts/${account}/models/m`;
const admin = principalContext(account, 'admin');
const ctx = systemContext('race');
let schema: PostgresTestSchema | undefined;
const gateways: TestGateway[] = [];

beforeAll(async () => {
  schema = await postgresTestSchema('batchrace');
  // One after another: each runs the migrations on start.
  gateways.push(await createTestGateway({ plugins: [schema.plugin()] }));
  gateways.push(await createTestGateway({ plugins: [schema.plugin()] }));
}, 60_000);
afterAll(async () => {
  for (const g of gateways) await g.stop();
  await schema?.cleanup();
});

describe('temporary deployments across two gateway instances (PostgreSQL)', () => {
  it('eight jobs provided at once through two instances share one deployment; racing releases delete it once', async () => {
    const [a, b] = gateways as [TestGateway, TestGateway];
    await a.services.models.create(admin, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'm');
    const sides = [a, b].map((g) => {
      const storage = g.gateway.resolve(storageToken);
      const directory = g.gateway.resolve(servingDirectoryToken);
      return { storage, capacity: new BatchCapacity(storage, g.services.deployments), resolve: (m: string) => directory.resolve(ctx, m) };
    });
    const now = new Date().toISOString();
    const jobs = Array.from({ length: 8 }, (_, i) => ({
      name: `accounts/${account}/batchInferenceJobs/j${i}`, createTime: now, updateTime: now, model, state: 'JOB_STATE_PENDING' as const, precision: 'FP16' as const,
    }));
    for (const job of jobs) await sides[0]!.storage.resources.create(ctx, job.name, job as JsonObject);

    const held = await Promise.all(jobs.map((job, i) => sides[i % 2]!.capacity.provide(ctx, sides[i % 2]!.resolve, job, false)));
    expect(new Set(held.map((h) => h.deployment)).size).toBe(1);
    expect(held.every((h) => h.temporary)).toBe(true);
    const live = await a.services.deployments.list(admin, account, {});
    expect(live.items.map((d) => d.name)).toEqual([held[0]!.deployment]);
    const [record] = await temporaryDeploymentRecords(ctx, sides[1]!.storage, account);
    expect(record?.entries).toHaveLength(1);
    expect([...record!.entries[0]!.holders].sort()).toEqual(jobs.map((j) => j.name).sort());

    await Promise.all(jobs.map((job, i) => sides[(i + 1) % 2]!.capacity.release(ctx, job.name)));
    expect((await a.services.deployments.list(admin, account, {})).items).toEqual([]);
    const ever = await b.services.deployments.list(admin, account, { showDeleted: true });
    expect(ever.items.map((d) => [d.name, d.state])).toEqual([[held[0]!.deployment, 'DELETED']]);
    expect(await temporaryDeploymentRecords(ctx, sides[0]!.storage, account)).toEqual([]);
  }, 60_000);
});
