import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage, MemoryStorage } from '../testing/index.js';
import { testRuntime } from '../testing/test-runtime.js';
import { failedPrecondition } from '../errors/index.js';
import { definePlugin } from '../kernel/plugin.js';
import { storageToken } from '../kernel/tokens.js';
import { simulatedProvisioner, type SimulatedProvisioner } from '../runtime/simulated-provisioner.js';
import { ManualClock } from '../testing/test-gateway.js';
import { servingIndexKey } from './deployment-reconciler.js';
import { parseReplicaId } from './replica-naming.js';
import { adminOf, baseModelBody, fastDelays, startServingGateway, waitFor, type ServingTestGateway } from '../testing/serving-test-kit.js';
import type { ServingOptions } from './serving-options.js';
import type { JsonObject } from '../contracts/json.js';
import { systemContext } from '../contracts/request-context.js';
import { createGateway } from '../services/create-gateway.js';
import { silentLogger } from '../ports/logger.js';
import { coreServicesToken } from '../services/tokens.js';
import { staticTokenAuth } from '../testing/test-gateway.js';
import { noRuntimeStatus } from '../resources/deployments/deployment-definition.js';

const account = 'acme';
const ctx = adminOf(account);
const baseName = `accounts/${account}/models/base`;
const nameOf = (id: string) => `accounts/${account}/deployments/${id}`;

let open: ServingTestGateway[] = [];
const extraProvisioners: SimulatedProvisioner[] = [];

afterEach(async () => {
  for (const g of open) await g.stop();
  for (const p of extraProvisioners.splice(0)) await p.close();
  open = [];
});

async function start(options: { provisioner?: SimulatedProvisioner; serving?: ServingOptions; storage?: MemoryStorage } = {}): Promise<ServingTestGateway> {
  const shared = options.storage;
  const g = await startServingGateway({
    runtime: (p) => testRuntime({ provisioner: p }),
    storage: shared
      ? definePlugin({ id: 'storage-memory', register: (b) => b.bindValue(storageToken, shared) })
      : memoryStorage(),
    ...(options.provisioner ? { provisioner: options.provisioner } : {}),
    ...(options.serving ? { serving: options.serving } : {}),
  });
  open.push(g);
  return g;
}

async function withModel(g: ServingTestGateway): Promise<void> {
  await g.tg.services.models.create(ctx, account, baseModelBody(), 'base');
}

const getDeployment = (g: ServingTestGateway, id: string) => g.tg.services.deployments.get(ctx, nameOf(id));
const untilState = (g: ServingTestGateway, id: string, state: string, timeoutMs = 3000) =>
  waitFor(() => getDeployment(g, id), (d) => d.state === state, timeoutMs);

async function deploy(g: ServingTestGateway, id: string, body: JsonObject = {}): Promise<JsonObject> {
  return g.tg.services.deployments.create(ctx, account, { baseModel: baseName, ...body }, { deploymentId: id });
}

describe('create', () => {
  it('CREATING → READY with replica counts, stats and a DEPLOYED base-model record', async () => {
    const g = await start();
    await withModel(g);
    const created = await deploy(g, 'd', { minReplicaCount: 2, maxReplicaCount: 3 });
    expect(created.state).toBe('CREATING');
    const ready = await untilState(g, 'd', 'READY');
    const settled = await waitFor(() => getDeployment(g, 'd'), (d) => (d.replicaStats as JsonObject).readyReplicaCount === 2);
    expect(ready.desiredReplicaCount).toBe(2);
    expect(settled).toMatchObject({ replicaCount: 2, replicaStats: { pendingSchedulingReplicaCount: 0, downloadingModelReplicaCount: 0, initializingReplicaCount: 0, readyReplicaCount: 2 } });
    expect(settled.status).toBeUndefined();
    const replicas = g.reconciler.replicasOf(nameOf('d'));
    expect(replicas.map((r) => r.index).sort()).toEqual([0, 1]);
    for (const r of replicas) {
      expect(r.replicaId.length).toBeLessThanOrEqual(40);
      expect(r.replicaId).toMatch(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/);
      expect(parseReplicaId(r.replicaId, nameOf('d'))).toEqual({ generation: r.generation, index: r.index });
    }
    expect((await g.provisioner.listReplicas(systemContext(), { deployment: nameOf('d') })).length).toBe(2);
    const model = await waitFor(() => g.tg.services.models.get(ctx, baseName), (m) => (m.deployedModelRefs as JsonObject[] | undefined)?.[0]?.state === 'DEPLOYED');
    expect(model.deployedModelRefs).toEqual([{ name: `accounts/${account}/deployedModels/d`, deployment: nameOf('d'), state: 'DEPLOYED', default: true, public: false }]);
  });

  it('reports intermediate phases in replicaStats while replicas come up', async () => {
    const provisioner = simulatedProvisioner({ delays: { schedulingMs: 10, downloadingMs: 300, initializingMs: 10 } });
    const g = await start({ provisioner });
    await withModel(g);
    await deploy(g, 'd');
    const downloading = await waitFor(() => getDeployment(g, 'd'), (d) => (d.replicaStats as JsonObject).downloadingModelReplicaCount === 1);
    expect(downloading).toMatchObject({ state: 'CREATING', replicaCount: 1 });
    await untilState(g, 'd', 'READY');
  });

  it('waits in CREATING while capacity is missing (pendingScheduling) and becomes READY when it appears', async () => {
    const provisioner = simulatedProvisioner({ delays: fastDelays, inventory: { GPUX_A100_80GB: 0 } });
    const g = await start({ provisioner });
    await withModel(g);
    await deploy(g, 'd');
    const pending = await waitFor(() => getDeployment(g, 'd'), (d) => (d.replicaStats as JsonObject).pendingSchedulingReplicaCount === 1);
    expect(pending.state).toBe('CREATING');
    provisioner.setInventory('GPUX_A100_80GB', 8);
    await untilState(g, 'd', 'READY');
  });
});

describe('failures', () => {
  it('replaces a failed replica and stays READY when the replacement comes up', async () => {
    const g = await start();
    await withModel(g);
    await deploy(g, 'd');
    await untilState(g, 'd', 'READY');
    const [first] = await g.provisioner.listReplicas(systemContext());
    await g.provisioner.crashReplica(first!.replicaId);
    expect(first!.status().phase).toBe('failed');
    const [replacement] = await waitFor(
      () => g.provisioner.listReplicas(systemContext()),
      (rs) => rs.length === 1 && rs[0] !== first && rs[0]!.status().phase === 'ready',
    );
    expect(g.reconciler.view(nameOf('d'))?.ready.map((r) => r.replicaId)).toEqual([replacement!.replicaId]);
    expect((await getDeployment(g, 'd')).state).toBe('READY');
  });

  it('FAILED with status after maxConsecutiveFailures; a PATCH retries (FAILED → UPDATING → READY)', async () => {
    const provisioner = simulatedProvisioner({ delays: fastDelays, failures: { failNextReplicas: 3 } });
    const g = await start({ provisioner, serving: { maxConsecutiveFailures: 3 } });
    await withModel(g);
    await deploy(g, 'd');
    const failed = await untilState(g, 'd', 'FAILED');
    expect(failed.status).toMatchObject({ code: 'UNAVAILABLE' });
    expect(String((failed.status as JsonObject).message)).toContain('injected failure');
    expect((await provisioner.listReplicas(systemContext())).length).toBe(0);
    const refs = await waitFor(() => g.tg.services.models.get(ctx, baseName), (m) => (m.deployedModelRefs as JsonObject[])[0]?.state === 'DEPLOYING');
    expect((refs.deployedModelRefs as JsonObject[])[0]!.state).toBe('DEPLOYING');
    await g.tg.services.deployments.update(ctx, nameOf('d'), { displayName: 'retry' }, 'displayName');
    const ready = await untilState(g, 'd', 'READY');
    expect(ready.status).toBeUndefined();
  });

  it('a provisioner that refuses the spec fails the deployment at once', async () => {
    const provisioner = simulatedProvisioner({ delays: fastDelays });
    const refusing = Object.assign(Object.create(provisioner) as SimulatedProvisioner, {
      startReplica: () => Promise.reject(failedPrecondition('no static server is configured for this model')),
    });
    extraProvisioners.push(provisioner);
    const g = await startServingGateway({ runtime: () => testRuntime({ provisioner: refusing }), storage: memoryStorage(), provisioner, serving: { pollIntervalMs: 50 } });
    open.push(g);
    await withModel(g);
    await deploy(g, 'd');
    const failed = await untilState(g, 'd', 'FAILED');
    expect(failed.status).toEqual({ code: 'FAILED_PRECONDITION', message: 'no static server is configured for this model' });
  });
});

describe('rollout', () => {
  it('a rollout change moves READY → UPDATING, starts a new generation, stops the old one, then READY', async () => {
    const g = await start();
    await withModel(g);
    await deploy(g, 'd');
    await untilState(g, 'd', 'READY');
    const [before] = g.reconciler.replicasOf(nameOf('d'));
    const updated = await g.tg.services.deployments.update(ctx, nameOf('d'), { acceleratorCount: 2 }, 'acceleratorCount');
    expect(updated.state).toBe('UPDATING');
    await untilState(g, 'd', 'READY');
    const after = g.reconciler.replicasOf(nameOf('d'));
    expect(after).toHaveLength(1);
    expect(after[0]!.generation).not.toBe(before!.generation);
    const live = await g.provisioner.listReplicas(systemContext(), { deployment: nameOf('d') });
    expect(live.map((h) => h.replicaId)).toEqual([after[0]!.replicaId]);
    expect(live[0]!.spec.acceleratorCount).toBe(2);
  });

  it('a change that does not touch replicas (displayName) keeps them', async () => {
    const g = await start();
    await withModel(g);
    await deploy(g, 'd');
    await untilState(g, 'd', 'READY');
    const before = g.reconciler.replicasOf(nameOf('d')).map((r) => r.replicaId);
    expect((await g.tg.services.deployments.update(ctx, nameOf('d'), { displayName: 'x' }, 'displayName')).state).toBe('READY');
    await g.reconciler.reconcileNow(nameOf('d'));
    expect(g.reconciler.replicasOf(nameOf('d')).map((r) => r.replicaId)).toEqual(before);
  });
});

describe('scale', () => {
  it(':scale up starts replicas; down stops them', async () => {
    const g = await start();
    await withModel(g);
    await deploy(g, 'd', { minReplicaCount: 1, maxReplicaCount: 3 });
    await untilState(g, 'd', 'READY');
    await g.tg.services.deployments.scale(ctx, nameOf('d'), 3);
    await waitFor(() => getDeployment(g, 'd'), (d) => (d.replicaStats as JsonObject).readyReplicaCount === 3);
    await g.tg.services.deployments.scale(ctx, nameOf('d'), 1);
    const down = await waitFor(() => getDeployment(g, 'd'), (d) => d.replicaCount === 1);
    expect(down).toMatchObject({ state: 'READY', desiredReplicaCount: 1 });
    expect((await g.provisioner.listReplicas(systemContext(), { deployment: nameOf('d') })).length).toBe(1);
  });
});

describe('autoscaling', () => {
  async function startWithClock(): Promise<{ g: ServingTestGateway; clock: ManualClock }> {
    const clock = new ManualClock();
    const g = await startServingGateway({ runtime: (p) => testRuntime({ provisioner: p }), storage: memoryStorage(), clock, serving: { pollIntervalMs: 60_000 } });
    open.push(g);
    await withModel(g);
    return { g, clock };
  }

  it('scales to zero after scaleToZeroWindow without requests; a request brings a replica back', async () => {
    const { g, clock } = await startWithClock();
    await deploy(g, 'd', { minReplicaCount: 0, maxReplicaCount: 2, autoscalingPolicy: { scaleToZeroWindow: '300s' } });
    await untilState(g, 'd', 'READY');
    clock.advance(299_000);
    await g.reconciler.reconcileNow(nameOf('d'));
    expect((await getDeployment(g, 'd')).desiredReplicaCount).toBe(1);
    clock.advance(1_000);
    await g.reconciler.reconcileNow(nameOf('d'));
    const zero = await waitFor(() => getDeployment(g, 'd'), (d) => d.replicaCount === 0);
    expect(zero).toMatchObject({ state: 'READY', desiredReplicaCount: 0 });
    const lease = await g.directory.acquire(ctx, await g.directory.resolve(ctx, baseName));
    expect((await getDeployment(g, 'd')).desiredReplicaCount).toBe(1);
    lease.release();
  });

  it('scales up when concurrent requests stay above loadTargets.concurrent_requests for scaleUpWindow', async () => {
    const { g, clock } = await startWithClock();
    await deploy(g, 'd', { minReplicaCount: 1, maxReplicaCount: 3, autoscalingPolicy: { scaleUpWindow: '10s', loadTargets: { concurrent_requests: 1 } } });
    await untilState(g, 'd', 'READY');
    const target = await g.directory.resolve(ctx, baseName);
    const leases = await Promise.all([1, 2, 3].map(() => g.directory.acquire(ctx, target)));
    await g.reconciler.reconcileNow(nameOf('d'));
    expect((await getDeployment(g, 'd')).desiredReplicaCount).toBe(1);
    clock.advance(10_000);
    await g.reconciler.reconcileNow(nameOf('d'));
    expect((await getDeployment(g, 'd')).desiredReplicaCount).toBe(3);
    await waitFor(() => getDeployment(g, 'd'), (d) => (d.replicaStats as JsonObject).readyReplicaCount === 3);
    for (const lease of leases) lease.release();
  });
});

describe('delete', () => {
  it('soft delete passes DELETING → DELETED, stops replicas and removes the deployed-model records', async () => {
    const g = await start();
    await withModel(g);
    await deploy(g, 'd');
    await untilState(g, 'd', 'READY');
    await g.tg.services.deployments.delete(ctx, nameOf('d'));
    const deleting = await getDeployment(g, 'd');
    expect(['DELETING', 'DELETED']).toContain(deleting.state);
    expect(deleting.deleteTime).toBeDefined();
    const deleted = await untilState(g, 'd', 'DELETED');
    expect(deleted).toMatchObject({ replicaCount: 0, desiredReplicaCount: 0 });
    expect(await g.provisioner.listReplicas(systemContext())).toHaveLength(0);
    expect((await g.tg.services.models.get(ctx, baseName)).deployedModelRefs).toBeUndefined();
    // undelete brings it back
    await g.tg.services.deployments.undelete(ctx, nameOf('d'));
    await untilState(g, 'd', 'READY');
    expect((await g.tg.services.models.get(ctx, baseName)).deployedModelRefs).toHaveLength(1);
  });

  it('hard delete stops the replicas and forgets the deployment', async () => {
    const g = await start();
    await withModel(g);
    await deploy(g, 'd');
    await untilState(g, 'd', 'READY');
    await g.tg.services.deployments.delete(ctx, nameOf('d'), { hard: true });
    await waitFor(() => g.provisioner.listReplicas(systemContext()), (rs) => rs.length === 0);
    await waitFor(() => g.tg.gateway.resolve(storageToken).kv.get(systemContext(), servingIndexKey), (v) => Array.isArray(v) && v.length === 0);
  });
});

describe('without a runtime plugin', () => {
  it('a deployment stays CREATING with a status naming the plugin to add (and the start logs it); a gateway with a runtime on the same store makes it READY', async () => {
    const storage = new MemoryStorage();
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (obj: object | string, msg?: string) => void warnings.push(msg ?? String(obj)) };
    const bare = createGateway({
      plugins: [definePlugin({ id: 'storage-memory', register: (b) => b.bindValue(storageToken, storage) }), staticTokenAuth({})],
      config: { pageTokenSecret: 'test-page-token-secret' },
      logger,
    });
    await bare.start();
    const services = bare.resolve(coreServicesToken);
    try {
      expect(warnings).toContainEqual(expect.stringMatching(/^inference is off: no accelerator runtime plugin is installed.*@berth\/plugin-runtime-gpux/));
      await services.models.create(ctx, account, baseModelBody(), 'base');
      const created = await services.deployments.create(ctx, account, { baseModel: baseName }, { deploymentId: 'd' });
      expect(created).toMatchObject({ state: 'CREATING', status: noRuntimeStatus });
      expect(created.status?.message).toMatch(/stays CREATING; add one to the gateway's plugins/);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await services.deployments.get(ctx, nameOf('d'))).toMatchObject({ state: 'CREATING', status: noRuntimeStatus });
      await services.deployments.delete(ctx, nameOf('d'));
      expect(await services.deployments.undelete(ctx, nameOf('d'))).toMatchObject({ state: 'CREATING', status: noRuntimeStatus });
    } finally {
      await bare.stop();
    }

    const g = await start({ storage });
    const ready = await untilState(g, 'd', 'READY');
    expect(ready.status).toBeUndefined();
  });
});

describe('restart', () => {
  it('a second gateway on the same storage and provisioner re-adopts the replicas and starts none', async () => {
    const storage = new MemoryStorage();
    const provisioner = simulatedProvisioner({ delays: fastDelays });
    extraProvisioners.push(provisioner);
    const first = await start({ storage, provisioner });
    await withModel(first);
    await deploy(first, 'd', { minReplicaCount: 2, maxReplicaCount: 2 });
    await waitFor(() => getDeployment(first, 'd'), (d) => d.state === 'READY' && (d.replicaStats as JsonObject).readyReplicaCount === 2);
    const ids = first.reconciler.replicasOf(nameOf('d')).map((r) => r.replicaId).sort();
    open = open.filter((g) => g !== first);
    await first.stop({ keepProvisioner: true });
    expect((await provisioner.listReplicas(systemContext())).map((h) => h.replicaId).sort()).toEqual(ids);

    let starts = 0;
    const counting = Object.assign(Object.create(provisioner) as SimulatedProvisioner, {
      startReplica: (...args: Parameters<SimulatedProvisioner['startReplica']>) => {
        starts += 1;
        return provisioner.startReplica(...args);
      },
    });
    const second = await start({ storage, provisioner: counting });
    open = open.filter((g) => g !== second);
    try {
      expect(second.reconciler.replicasOf(nameOf('d')).map((r) => r.replicaId).sort()).toEqual(ids);
      const d = await getDeployment(second, 'd');
      expect(d).toMatchObject({ state: 'READY', replicaCount: 2 });
      expect(second.reconciler.view(nameOf('d'))?.ready).toHaveLength(2);
      await second.reconciler.reconcileNow(nameOf('d'));
      expect(starts).toBe(0);
    } finally {
      await second.stop({ keepProvisioner: true });
    }
  });

  it('stops orphaned replicas of deployments that no longer exist', async () => {
    const storage = new MemoryStorage();
    const provisioner = simulatedProvisioner({ delays: fastDelays });
    extraProvisioners.push(provisioner);
    await provisioner.startReplica(systemContext(), {
      replicaId: 'ghost-000000-000000-0',
      deployment: nameOf('ghost'),
      spec: { baseModel: baseName, acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 1 },
    });
    const g = await start({ storage, provisioner });
    open = open.filter((x) => x !== g);
    try {
      expect(await provisioner.listReplicas(systemContext())).toHaveLength(0);
    } finally {
      await g.stop({ keepProvisioner: true });
    }
  });
});
