import { afterEach, describe, expect, it } from 'vitest';
import { systemContext, type RequestContext } from '../contracts/request-context.js';
import { unavailable } from '../errors/index.js';
import { silentLogger } from '../ports/logger.js';
import type { Provisioner, ReplicaSpec } from '../ports/provisioner.js';
import { ReplicaTracker } from '../runtime/replica-tracker.js';
import { simulatedProvisioner, type SimulatedProvisioner } from '../runtime/simulated-provisioner.js';
import { MemoryStorage } from '../testing/index.js';
import { createTestRuntime } from '../testing/test-runtime.js';
import { adoptRunningReplicas, finalizeDeletion, releaseGoneDeployment, type DeletionSteps } from './reconciler-deletion.js';
import { newManaged, type Managed } from './reconciler-model.js';
import type { StatusChange } from './reconciler-status.js';
import { replicaIdFor } from './replica-naming.js';

const ctx = systemContext('test');
const nameOf = (id: string) => `accounts/acme/deployments/${id}`;
const spec: ReplicaSpec = { baseModel: 'accounts/acme/models/base', acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 1 };

const provisioners: SimulatedProvisioner[] = [];
afterEach(async () => {
  for (const p of provisioners.splice(0)) await p.close();
});

describe('adoptRunningReplicas', () => {
  /** A provisioner whose replicas stay pending (no capacity, no engine). */
  function pendingProvisioner(): SimulatedProvisioner {
    const p = simulatedProvisioner({ inventory: { GPUX_A100_80GB: 0 } });
    provisioners.push(p);
    return p;
  }
  const start = (p: Provisioner, deployment: string, replicaId: string) => p.startReplica(ctx, { replicaId, deployment, spec });

  it('adopts named replicas of live deployments, stops those of gone ones and leaves foreign ones alone', async () => {
    const storage = new MemoryStorage();
    await storage.resources.create(ctx, nameOf('live'), { state: 'READY' });
    await storage.resources.create(ctx, nameOf('deleted'), { state: 'DELETED' });
    const provisioner = pendingProvisioner();
    const live = replicaIdFor(nameOf('live'), 'abc123', 2);
    await start(provisioner, nameOf('live'), live);
    await start(provisioner, nameOf('live'), 'foreign-replica');
    await start(provisioner, nameOf('deleted'), replicaIdFor(nameOf('deleted'), 'abc123', 0));
    await start(provisioner, nameOf('absent'), replicaIdFor(nameOf('absent'), 'abc123', 0));

    const adopted: string[] = [];
    // Two runtimes on one provisioner: its replicas are listed once.
    const runtimes = [createTestRuntime({ provisioner }), createTestRuntime({ provisioner })];
    await adoptRunningReplicas(ctx, { runtimes, storage, logger: silentLogger }, (handle, owner, { generation, index }) => {
      expect(owner).toBe(provisioner);
      adopted.push(`${handle.replicaId} ${generation}/${index}`);
    });
    expect(adopted).toEqual([`${live} abc123/2`]);
    expect((await provisioner.listReplicas(ctx)).map((h) => h.replicaId).sort()).toEqual(['foreign-replica', live].sort());
  });

  it('skips a provisioner that cannot list its replicas', async () => {
    const storage = new MemoryStorage();
    await storage.resources.create(ctx, nameOf('d'), { state: 'READY' });
    const down: Provisioner = Object.assign(Object.create(pendingProvisioner()) as SimulatedProvisioner, {
      listReplicas: () => Promise.reject(unavailable('cluster down')),
    });
    const up = pendingProvisioner();
    await start(up, nameOf('d'), replicaIdFor(nameOf('d'), 'abc123', 0));
    const adopted: string[] = [];
    const runtimes = [createTestRuntime({ provisioner: down }), createTestRuntime({ provisioner: up })];
    await adoptRunningReplicas(ctx, { runtimes, storage, logger: silentLogger }, (handle) => adopted.push(handle.replicaId));
    expect(adopted).toEqual([replicaIdFor(nameOf('d'), 'abc123', 0)]);
  });
});

describe('deletion steps', () => {
  /** A deployment with one tracked replica; `replicaStops` says whether stopAll / drain let it go. */
  function setup(options: { replicaStops: boolean }) {
    const calls: string[] = [];
    const m = newManaged(nameOf('d'));
    const handle = new ReplicaTracker(replicaIdFor(m.name, 'abc123', 0), m.name, spec);
    const provisioner = simulatedProvisioner();
    provisioners.push(provisioner);
    m.replicas.set(handle.replicaId, { handle, provisioner, generation: 'abc123', index: 0, unsubscribe: () => {}, draining: false, drainDeadline: 0, stopping: false });
    const letGo = (what: string) => async (_ctx: RequestContext, target: Managed) => {
      calls.push(what);
      if (options.replicaStops) target.replicas.clear();
    };
    const steps: DeletionSteps = {
      replicas: { stopAll: letGo('stopAll'), drain: letGo('drain') },
      write: async (_ctx, _m, expected, change: StatusChange) => void calls.push(`write ${expected} → ${JSON.stringify(change)}`),
      syncRecords: async (_ctx, _m, state) => void calls.push(`sync ${state}`),
      forget: () => void calls.push('forget'),
    };
    return { m, steps, calls };
  }

  it('a gone deployment: its replicas stop at once, its records follow, and it is forgotten once none is left', async () => {
    const stopped = setup({ replicaStops: true });
    await releaseGoneDeployment(ctx, stopped.steps, stopped.m, 'ABSENT');
    expect(stopped.calls).toEqual(['stopAll', 'sync ABSENT', 'forget']);

    const stuck = setup({ replicaStops: false });
    await releaseGoneDeployment(ctx, stuck.steps, stuck.m, 'DELETED');
    expect(stuck.calls).toEqual(['stopAll', 'sync DELETED']);
  });

  it('DELETING: replicas drain; once none is left DELETING → DELETED, records follow and it is forgotten', async () => {
    const drained = setup({ replicaStops: true });
    await finalizeDeletion(ctx, drained.steps, drained.m);
    expect(drained.calls).toEqual(['sync DELETING', 'drain', 'write DELETING → {"state":"DELETED"}', 'sync DELETED', 'forget']);

    const draining = setup({ replicaStops: false });
    await finalizeDeletion(ctx, draining.steps, draining.m);
    expect(draining.calls).toEqual(['sync DELETING', 'drain', 'write DELETING → {}']);
  });
});
