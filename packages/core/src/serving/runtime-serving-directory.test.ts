import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../testing/index.js';
import { testRuntime } from '../testing/test-runtime.js';
import { storageToken } from '../kernel/tokens.js';
import { createTestGateway, principalContext } from '../testing/test-gateway.js';
import { servingDirectoryToken } from '../kernel/tokens.js';
import { adminOf, baseModelBody, startServingGateway, waitFor, type ServingTestGateway } from '../testing/serving-test-kit.js';
import type { ServingOptions } from './serving-options.js';
import { expectRejected as rejected } from '../testing/assertions.js';
import type { JsonObject } from '../contracts/json.js';

const account = 'acme';
const ctx = adminOf(account);
const baseName = `accounts/${account}/models/base`;
const addonName = `accounts/${account}/models/addon`;
const nameOf = (id: string) => `accounts/${account}/deployments/${id}`;

let g: ServingTestGateway | undefined;
afterEach(async () => {
  await g?.stop();
  g = undefined;
});

async function start(serving: ServingOptions = {}): Promise<ServingTestGateway> {
  g = await startServingGateway({ runtime: (p) => testRuntime({ provisioner: p }), storage: memoryStorage(), serving });
  await g.tg.services.models.create(ctx, account, baseModelBody(), 'base');
  return g;
}

async function deployReady(s: ServingTestGateway, id: string, body: JsonObject = {}): Promise<void> {
  await s.tg.services.deployments.create(ctx, account, { baseModel: baseName, ...body }, { deploymentId: id });
  await waitFor(() => s.tg.services.deployments.get(ctx, nameOf(id)), (d) => d.state === 'READY' && (d.replicaStats as JsonObject).readyReplicaCount === Math.max(1, Number(body.minReplicaCount ?? 1)));
}

describe('resolve', () => {
  it('finds the default deployed model, an explicit deployment (full or short), and falls back to a base model’s deployment', async () => {
    const s = await start();
    await deployReady(s, 'one');
    await deployReady(s, 'two');
    expect(await s.directory.resolve(ctx, baseName)).toEqual({
      accountId: account, model: baseName, deployment: nameOf('one'), deployedModel: `accounts/${account}/deployedModels/one`,
    });
    expect((await s.directory.resolve(ctx, `${baseName}#${nameOf('two')}`)).deployment).toBe(nameOf('two'));
    expect((await s.directory.resolve(ctx, `${baseName}#two`)).deployment).toBe(nameOf('two'));
    // without records, the base model's own deployment is found
    const storage = s.tg.gateway.resolve(storageToken);
    await storage.resources.delete(ctx, `accounts/${account}/deployedModels/one`);
    await storage.resources.delete(ctx, `accounts/${account}/deployedModels/two`);
    expect(await s.directory.resolve(ctx, baseName)).toEqual({ accountId: account, model: baseName, deployment: nameOf('one') });
  });

  it('routes an add-on through its deployed-model record and leases under the add-on’s name', async () => {
    const s = await start();
    await s.tg.services.models.create(ctx, account, { peftDetails: { baseModel: baseName, r: 8, targetModules: ['q_proj'] } }, 'addon');
    await deployReady(s, 'd', { enableAddons: true });
    await rejected(s.directory.resolve(ctx, addonName), 'NOT_FOUND');
    await s.tg.services.deployedModels.create(ctx, account, { model: addonName, deployment: nameOf('d') }, { deployedModelId: 'addon-on-d' });
    const target = await s.directory.resolve(ctx, addonName);
    expect(target).toMatchObject({ deployment: nameOf('d'), deployedModel: `accounts/${account}/deployedModels/addon-on-d` });
    const lease = await s.directory.acquire(ctx, target);
    expect(lease.servedModelId).toBe(addonName);
    lease.release();
    const baseLease = await s.directory.acquire(ctx, await s.directory.resolve(ctx, baseName));
    expect(baseLease.servedModelId).toBe(baseName);
    baseLease.release();
  });

  it('answers the facts the replicas run with when asked: their context length, and image input (an add-on\'s from its base)', async () => {
    const s = await start();
    await s.tg.services.models.update(ctx, baseName, { supportsImageInput: true }, 'supportsImageInput');
    // The add-on's own context length is not what the base model's replicas run with.
    await s.tg.services.models.create(ctx, account, { peftDetails: { baseModel: baseName, r: 8, targetModules: ['q_proj'] }, contextLength: 1024 }, 'addon');
    await deployReady(s, 'one', { enableAddons: true });
    await s.tg.services.deployedModels.create(ctx, account, { model: addonName, deployment: nameOf('one') }, { deployedModelId: 'addon-on-one' });
    expect((await s.directory.resolve(ctx, baseName)).facts).toBeUndefined();
    expect((await s.directory.resolve(ctx, baseName, { facts: true })).facts).toEqual({ contextLength: 8192, supportsImageInput: true });
    expect((await s.directory.resolve(ctx, `${baseName}#one`, { facts: true })).facts).toEqual({ contextLength: 8192, supportsImageInput: true });
    expect((await s.directory.resolve(ctx, addonName, { facts: true })).facts).toEqual({ contextLength: 8192, supportsImageInput: true });
    await s.tg.services.models.update(ctx, addonName, { supportsImageInput: false }, 'supportsImageInput');
    expect((await s.directory.resolve(ctx, addonName, { facts: true })).facts).toEqual({ contextLength: 8192, supportsImageInput: false });
  });

  it('NOT_FOUND for a missing or undeployed model; FAILED_PRECONDITION for a deleted deployment; INVALID_ARGUMENT for a bad name', async () => {
    const s = await start();
    await rejected(s.directory.resolve(ctx, `accounts/${account}/models/missing`), 'NOT_FOUND');
    await rejected(s.directory.resolve(ctx, baseName), 'NOT_FOUND');
    await rejected(s.directory.resolve(ctx, 'not a model'), 'INVALID_ARGUMENT');
    await deployReady(s, 'd');
    await rejected(s.directory.resolve(ctx, `${baseName}#missing`), 'NOT_FOUND');
    await s.tg.services.deployments.delete(ctx, nameOf('d'));
    await rejected(s.directory.resolve(ctx, `${baseName}#d`), 'FAILED_PRECONDITION');
  });

  it('needs inference.use in the model’s account; a public model is usable from anywhere', async () => {
    const s = await start();
    await deployReady(s, 'd');
    expect((await s.directory.resolve(principalContext(account, 'inference-user'), baseName)).deployment).toBe(nameOf('d'));
    await rejected(s.directory.resolve(principalContext('other', 'admin'), baseName), 'PERMISSION_DENIED');
    await rejected(s.directory.resolve(principalContext('other', 'admin'), `accounts/${account}/models/missing`), 'PERMISSION_DENIED');
    await s.tg.services.models.update(ctx, baseName, { public: true }, 'public');
    expect((await s.directory.resolve(principalContext('other', 'inference-user'), baseName)).deployment).toBe(nameOf('d'));
  });
});

describe('acquire', () => {
  it('spreads requests over ready replicas by least outstanding requests, and release frees them', async () => {
    const s = await start();
    await deployReady(s, 'd', { minReplicaCount: 2, maxReplicaCount: 2 });
    const target = await s.directory.resolve(ctx, baseName);
    const leases = await Promise.all([1, 2, 3, 4].map(() => s.directory.acquire(ctx, target)));
    const counts = new Map<string, number>();
    for (const lease of leases) counts.set(lease.replicaId, (counts.get(lease.replicaId) ?? 0) + 1);
    expect([...counts.values()]).toEqual([2, 2]);
    expect(leases[0]!.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const models = (await (await fetch(`${leases[0]!.endpoint}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toContain(leases[0]!.servedModelId);
    for (const lease of leases) {
      lease.release();
      lease.release(); // idempotent
    }
    expect(leases.map((l) => s.load.outstanding(l.replicaId))).toEqual([0, 0, 0, 0]);
  });

  it('is sticky on the affinity key when the deployment enables session affinity', async () => {
    const s = await start();
    await deployReady(s, 'd', { minReplicaCount: 3, maxReplicaCount: 3, enableSessionAffinity: true });
    const target = await s.directory.resolve(ctx, baseName);
    for (const key of ['alice', 'bob', 'carol']) {
      const chosen = new Set<string>();
      for (let i = 0; i < 5; i += 1) {
        const lease = await s.directory.acquire(ctx, target, { affinityKey: key });
        chosen.add(lease.replicaId);
      }
      expect(chosen.size).toBe(1);
    }
  });

  it('scales a deployment at zero replicas up and holds the request until a replica is ready', async () => {
    const s = await start();
    await deployReady(s, 'd', { minReplicaCount: 0, maxReplicaCount: 1 });
    await s.tg.services.deployments.scale(ctx, nameOf('d'), 0);
    await waitFor(() => s.tg.services.deployments.get(ctx, nameOf('d')), (d) => d.replicaCount === 0);
    const target = await s.directory.resolve(ctx, baseName);
    const lease = await s.directory.acquire(ctx, target);
    expect(lease.deployment).toBe(nameOf('d'));
    expect((await s.tg.services.deployments.get(ctx, nameOf('d'))).desiredReplicaCount).toBe(1);
    lease.release();
  });

  it('UNAVAILABLE when no replica becomes ready in time, or when the queue is full; CANCELLED on abort', async () => {
    const s = await start({ maxWaitMs: 150, maxWaitersPerDeployment: 1 });
    s.provisioner.setInventory('GPUX_A100_80GB', 0);
    await s.tg.services.deployments.create(ctx, account, { baseModel: baseName }, { deploymentId: 'd' });
    const target = await s.directory.resolve(ctx, baseName);
    const controller = new AbortController();
    const waiting = s.directory.acquire({ ...ctx, signal: controller.signal }, target);
    await waitFor(() => s.directory.waiting(nameOf('d')), (n) => n === 1);
    const full = await rejected(s.directory.acquire(ctx, target), 'UNAVAILABLE');
    expect(full.message).toContain('waiting');
    controller.abort();
    await rejected(waiting, 'CANCELLED');
    expect(s.directory.waiting(nameOf('d'))).toBe(0);
    const timedOut = await rejected(s.directory.acquire(ctx, target), 'UNAVAILABLE');
    expect(timedOut.message).toContain('150 ms');
    expect(s.load.active(nameOf('d'))).toBe(0);
  });

  it('without a runtime plugin, acquire is UNAVAILABLE at once', async () => {
    const tg = await createTestGateway({ plugins: [memoryStorage()] });
    try {
      await tg.services.models.create(ctx, account, baseModelBody(), 'base');
      await tg.services.deployments.create(ctx, account, { baseModel: baseName }, { deploymentId: 'd' });
      const directory = tg.gateway.resolve(servingDirectoryToken);
      const target = await directory.resolve(ctx, baseName);
      await rejected(directory.acquire(ctx, target), 'UNAVAILABLE');
    } finally {
      await tg.stop();
    }
  });
});

describe('deletion guard', () => {
  it('refuses to delete a deployment that served requests recently unless ignoreChecks; an idle one deletes', async () => {
    const s = await start();
    await deployReady(s, 'busy');
    await deployReady(s, 'idle');
    const lease = await s.directory.acquire(ctx, await s.directory.resolve(ctx, `${baseName}#busy`));
    lease.release();
    const refused = await rejected(s.tg.services.deployments.delete(ctx, nameOf('busy')), 'FAILED_PRECONDITION');
    expect(refused.message).toContain('ignoreChecks=true');
    expect((await s.tg.services.deployments.get(ctx, nameOf('busy'))).state).toBe('READY');
    await s.tg.services.deployments.delete(ctx, nameOf('busy'), { ignoreChecks: true });
    await s.tg.services.deployments.delete(ctx, nameOf('idle'));
    await waitFor(() => s.tg.services.deployments.get(ctx, nameOf('idle')), (d) => d.state === 'DELETED');
  });

  it('the window is configurable and follows the gateway clock', async () => {
    const s = await start({ recentTrafficWindowMs: 1 });
    await deployReady(s, 'd');
    const lease = await s.directory.acquire(ctx, await s.directory.resolve(ctx, baseName));
    lease.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await s.tg.services.deployments.delete(ctx, nameOf('d'));
  });
});
