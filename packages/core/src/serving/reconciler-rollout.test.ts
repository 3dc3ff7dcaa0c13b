import { afterEach, describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import { Code } from '../errors/index.js';
import type { ReplicaPhase, ReplicaSpec } from '../ports/provisioner.js';
import { ReplicaTracker } from '../runtime/replica-tracker.js';
import { simulatedProvisioner, type SimulatedProvisioner } from '../runtime/simulated-provisioner.js';
import { createTestRuntime } from '../testing/test-runtime.js';
import { newManaged, type Managed, type TrackedReplica } from './reconciler-model.js';
import type { ReplicaLifecycle } from './reconciler-replicas.js';
import { rollOut, stateAfterRollout } from './reconciler-rollout.js';

const ctx = systemContext('test');
const spec: ReplicaSpec = { baseModel: 'accounts/acme/models/base', acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 1 };
const [oldGen, newGen] = ['aaaaaa', 'bbbbbb'];

const provisioners: SimulatedProvisioner[] = [];
afterEach(async () => {
  for (const p of provisioners.splice(0)) await p.close();
});

function deployment(): { m: Managed; add: (generation: string, index: number, phase: ReplicaPhase, flags?: Partial<Pick<TrackedReplica, 'draining' | 'stopping'>>) => void } {
  const m = newManaged('accounts/acme/deployments/d');
  const provisioner = simulatedProvisioner();
  provisioners.push(provisioner);
  return {
    m,
    add(generation, index, phase, flags = {}) {
      const handle = new ReplicaTracker(`d-${generation}-${index}`, m.name, spec);
      if (phase !== 'pending_scheduling') handle.transition(phase);
      m.replicas.set(handle.replicaId, { handle, provisioner, generation, index, unsubscribe: () => {}, draining: false, drainDeadline: 0, stopping: false, ...flags });
    },
  };
}

/** Records what rollOut asks for; a drained replica is marked draining, as the lifecycle does with a ready one. */
function recorder(refuse = false) {
  const calls: string[] = [];
  const replicas: Pick<ReplicaLifecycle, 'drain' | 'startReplicas' | 'wakeAfter'> = {
    drain: async (_ctx, _m, drained) => {
      if (drained.length === 0) return;
      calls.push(`drain ${drained.map((r) => r.handle.replicaId).join(' ')}`);
      for (const r of drained) r.draining = true;
    },
    startReplicas: async (_ctx, _m, _runtime, _spec, generation, count) => {
      calls.push(`start ${generation} ×${count}`);
      return refuse ? { code: Code.FAILED_PRECONDITION, message: 'refused' } : undefined;
    },
    wakeAfter: (_m, delayMs) => void calls.push(`wake in ${delayMs > 0 ? 'future' : 'past'}`),
  };
  return { calls, replicas };
}

/** The recorder starts nothing, so the runtime's provisioner is never used. */
const runtime = createTestRuntime({ provisioner: simulatedProvisioner() });
const target = (desired: number) => ({ runtime, spec, generation: newGen, desired });

describe('rollOut', () => {
  it('starts the replicas the current generation misses, counting neither draining nor stopping ones', async () => {
    const { m, add } = deployment();
    add(newGen, 0, 'ready');
    add(newGen, 1, 'ready', { stopping: true });
    add(newGen, 2, 'initializing', { draining: true });
    const { calls, replicas } = recorder();
    expect(await rollOut(ctx, replicas, m, target(3))).toBeUndefined();
    expect(calls).toEqual([`drain d-${newGen}-2`, `start ${newGen} ×2`]);
  });

  it('during a failure backoff starts nothing and sets a wake', async () => {
    const { m } = deployment();
    m.nextStartAt = Date.now() + 60_000;
    const { calls, replicas } = recorder();
    await rollOut(ctx, replicas, m, target(1));
    expect(calls).toEqual(['wake in future']);
  });

  it('drains the replicas beyond desired, the least advanced first, then the highest index', async () => {
    const { m, add } = deployment();
    add(newGen, 0, 'ready');
    add(newGen, 1, 'ready');
    add(newGen, 2, 'ready');
    add(newGen, 3, 'downloading');
    const { calls, replicas } = recorder();
    await rollOut(ctx, replicas, m, target(2));
    expect(calls).toEqual([`drain d-${newGen}-3 d-${newGen}-2`]);
  });

  it('surges a new generation: old replicas that are not ready go at once, ready ones as new ones become ready', async () => {
    const { m, add } = deployment();
    add(oldGen, 0, 'ready');
    add(oldGen, 1, 'ready');
    add(oldGen, 2, 'pending_scheduling');
    add(newGen, 0, 'ready');
    const { calls, replicas } = recorder();
    await rollOut(ctx, replicas, m, target(2));
    // one new replica ready of two desired: one old ready one stays.
    expect(calls).toEqual([`start ${newGen} ×1`, `drain d-${oldGen}-2`, `drain d-${oldGen}-1`]);
  });

  it('returns a refused start and drains nothing of the old generation', async () => {
    const { m, add } = deployment();
    add(oldGen, 0, 'pending_scheduling');
    const { calls, replicas } = recorder(true);
    expect(await rollOut(ctx, replicas, m, target(1))).toEqual({ code: 'FAILED_PRECONDITION', message: 'refused' });
    expect(calls).toEqual([`start ${newGen} ×1`]);
  });
});

describe('stateAfterRollout', () => {
  it('CREATING and UPDATING become READY once a replica of the generation serves, all have started and no old one is left', () => {
    const { m, add } = deployment();
    expect(stateAfterRollout(m, newGen, 0, 'CREATING')).toBe('READY');
    expect(stateAfterRollout(m, newGen, 0, 'STATE_UNSPECIFIED')).toBe('CREATING');
    add(newGen, 0, 'ready');
    add(newGen, 1, 'initializing');
    expect(stateAfterRollout(m, newGen, 2, 'CREATING')).toBe('READY');
    expect(stateAfterRollout(m, newGen, 3, 'CREATING')).toBe('CREATING');
    add(oldGen, 0, 'ready', { stopping: true });
    expect(stateAfterRollout(m, newGen, 2, 'UPDATING')).toBe('UPDATING');
  });

  it('READY finding old replicas becomes UPDATING; other states stay', () => {
    const { m, add } = deployment();
    add(oldGen, 0, 'ready');
    expect(stateAfterRollout(m, newGen, 1, 'READY')).toBe('UPDATING');
    expect(stateAfterRollout(m, oldGen, 1, 'READY')).toBe('READY');
    expect(stateAfterRollout(m, oldGen, 1, 'DELETING')).toBe('DELETING');
  });
});
