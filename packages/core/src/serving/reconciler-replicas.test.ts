import { afterEach, describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import { failedPrecondition, unavailable } from '../errors/index.js';
import { silentLogger } from '../ports/logger.js';
import type { Provisioner, ReplicaSpec } from '../ports/provisioner.js';
import { simulatedProvisioner, type SimulatedProvisioner } from '../runtime/simulated-provisioner.js';
import { ManualClock } from '../testing/test-gateway.js';
import { createTestRuntime } from '../testing/test-runtime.js';
import { fastDelays, waitFor } from '../testing/serving-test-kit.js';
import { newManaged, type Managed, type TrackedReplica } from './reconciler-model.js';
import { ReplicaLifecycle } from './reconciler-replicas.js';
import { replicaIdFor } from './replica-naming.js';
import { ServingLoad } from './serving-load.js';
import { resolveServingOptions, type ServingOptions } from './serving-options.js';

const ctx = systemContext('test');
const name = 'accounts/acme/deployments/d';
const generation = 'abc123';
const spec: ReplicaSpec = { baseModel: 'accounts/acme/models/base', acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 1 };

const provisioners: SimulatedProvisioner[] = [];
const managed: Array<{ lifecycle: ReplicaLifecycle; m: Managed }> = [];

afterEach(async () => {
  for (const { lifecycle, m } of managed.splice(0)) lifecycle.detach(m);
  for (const p of provisioners.splice(0)) await p.close();
});

/** Replicas stay pending_scheduling (no capacity, no engine) unless `ready` asks for ones that come up. */
function provisionerFor(ready = false): SimulatedProvisioner {
  const p = simulatedProvisioner(ready ? { delays: fastDelays } : { inventory: { GPUX_A100_80GB: 0 } });
  provisioners.push(p);
  return p;
}

function setup(options: ServingOptions = {}) {
  const changed: string[] = [];
  const passes: string[] = [];
  let stopped = false;
  const load = new ServingLoad(new ManualClock());
  const lifecycle = new ReplicaLifecycle(
    { options: resolveServingOptions({ retryBackoffMs: 100, maxRetryBackoffMs: 250, drainTimeoutMs: 60_000, ...options }), load, logger: silentLogger },
    { changed: (n) => changed.push(n), reconcileSoon: (n) => passes.push(n), isStopped: () => stopped },
  );
  const m = newManaged(name);
  managed.push({ lifecycle, m });
  return { lifecycle, m, load, changed, passes, stop: () => void (stopped = true) };
}

const only = (m: Managed): TrackedReplica => {
  expect(m.replicas.size).toBe(1);
  return [...m.replicas.values()][0]!;
};

describe('startReplicas', () => {
  it('starts replicas at the lowest free indexes of their generation and follows them', async () => {
    const provisioner = provisionerFor();
    const runtime = createTestRuntime({ provisioner });
    const { lifecycle, m, changed } = setup();
    expect(await lifecycle.startReplicas(ctx, m, runtime, spec, generation, 3)).toBeUndefined();
    expect([...m.replicas.keys()]).toEqual([0, 1, 2].map((i) => replicaIdFor(name, generation, i)));
    expect(changed).toEqual([name, name, name]);
    await lifecycle.stopReplica(ctx, m, m.replicas.get(replicaIdFor(name, generation, 1))!);
    await lifecycle.startReplicas(ctx, m, runtime, spec, generation, 2);
    await lifecycle.startReplicas(ctx, m, runtime, spec, 'def456', 1);
    expect([...m.replicas.values()].map((r) => `${r.generation}/${r.index}`).sort()).toEqual(['abc123/0', 'abc123/1', 'abc123/2', 'abc123/3', 'def456/0']);
    expect((await provisioner.listReplicas(ctx, { deployment: name })).length).toBe(5);
  });

  it('returns the error of a provisioner that refuses the spec, counting no failure', async () => {
    const refusing: Provisioner = Object.assign(Object.create(provisionerFor()) as SimulatedProvisioner, {
      startReplica: () => Promise.reject(failedPrecondition('no server for this model')),
    });
    const { lifecycle, m } = setup();
    const refused = await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner: refusing }), spec, generation, 2);
    expect(refused).toEqual({ code: 'FAILED_PRECONDITION', message: 'no server for this model' });
    expect(m).toMatchObject({ failures: 0, nextStartAt: 0 });
    expect(m.replicas.size).toBe(0);
  });

  it('counts a passing start error as a failure, ends the batch and backs off (doubling, capped)', async () => {
    let attempts = 0;
    const flaky: Provisioner = Object.assign(Object.create(provisionerFor()) as SimulatedProvisioner, {
      startReplica: () => {
        attempts += 1;
        return Promise.reject(unavailable('cluster down'));
      },
    });
    const runtime = createTestRuntime({ provisioner: flaky });
    const { lifecycle, m } = setup();
    for (const backoff of [100, 200, 250]) {
      expect(await lifecycle.startReplicas(ctx, m, runtime, spec, generation, 3)).toBeUndefined();
      const wait = m.nextStartAt - Date.now();
      expect(wait).toBeGreaterThan(backoff - 50);
      expect(wait).toBeLessThanOrEqual(backoff);
    }
    expect(attempts).toBe(3);
    expect(m).toMatchObject({ failures: 3, lastFailure: 'cluster down' });
    expect(m.retryTimer).toBeDefined();
  });

  it('starts nothing once the reconciler stopped', async () => {
    const { lifecycle, m, stop } = setup();
    stop();
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner: provisionerFor() }), spec, generation, 2);
    expect(m.replicas.size).toBe(0);
  });
});

describe('phase changes', () => {
  it('a failed replica counts a failure with its message and asks for a pass; a ready one resets the count', async () => {
    const provisioner = provisionerFor();
    const { lifecycle, m, passes } = setup();
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner }), spec, generation, 1);
    await provisioner.crashReplica(only(m).handle.replicaId, 'out of memory');
    expect(m).toMatchObject({ failures: 1, lastFailure: 'out of memory' });
    expect(passes).toEqual([name]);

    const ready = provisionerFor(true);
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner: ready }), spec, 'def456', 1);
    const [handle] = await ready.listReplicas(ctx);
    expect((await handle!.settled()).phase).toBe('ready');
    expect(m.failures).toBe(0);
  });

  it('detach stops following the replicas, which keep running', async () => {
    const provisioner = provisionerFor();
    const { lifecycle, m, passes } = setup();
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner }), spec, generation, 1);
    lifecycle.detach(m);
    await provisioner.crashReplica(only(m).handle.replicaId);
    expect(m.failures).toBe(0);
    expect(passes).toEqual([]);
  });
});

describe('stop, drain and reap', () => {
  it('drain stops a replica that is not ready at once', async () => {
    const provisioner = provisionerFor();
    const { lifecycle, m } = setup();
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner }), spec, generation, 1);
    await lifecycle.drain(ctx, m, [only(m)]);
    expect(m.replicas.size).toBe(0);
    expect(await provisioner.listReplicas(ctx)).toHaveLength(0);
  });

  it('drain takes a ready replica out of routing and stops it once its requests are done', async () => {
    const provisioner = provisionerFor(true);
    const { lifecycle, m, load, changed } = setup();
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner }), spec, generation, 1);
    const replica = only(m);
    await replica.handle.settled();
    const done = load.beginRequest(name, replica.handle.replicaId);
    changed.length = 0;
    await lifecycle.drain(ctx, m, [replica]);
    expect(replica).toMatchObject({ draining: true, stopping: false });
    expect(changed).toEqual([name]);
    expect(m.retryTimer).toBeDefined();
    done();
    await lifecycle.drain(ctx, m, [replica]);
    expect(m.replicas.size).toBe(0);
  });

  it('drain stops a busy replica once its drain time is up, and wakes the deployment then', async () => {
    const provisioner = provisionerFor(true);
    const { lifecycle, m, load, passes } = setup({ drainTimeoutMs: 30 });
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner }), spec, generation, 1);
    const replica = only(m);
    await replica.handle.settled();
    load.beginRequest(name, replica.handle.replicaId);
    await lifecycle.drain(ctx, m, [replica]);
    expect(m.replicas.size).toBe(1);
    await waitFor(() => passes, (p) => p.includes(name), 1000);
    await waitFor(() => Date.now(), (now) => now >= replica.drainDeadline, 1000);
    await lifecycle.drain(ctx, m, [replica]);
    expect(m.replicas.size).toBe(0);
  });

  it('a pass over a busy draining replica before its deadline (e.g. after an early wake) sets a wake for the deadline', async () => {
    const provisioner = provisionerFor(true);
    const { lifecycle, m, load } = setup({ drainTimeoutMs: 60_000 });
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner }), spec, generation, 1);
    const replica = only(m);
    await replica.handle.settled();
    load.beginRequest(name, replica.handle.replicaId);
    await lifecycle.drain(ctx, m, [replica]);
    // The wake set when draining began has fired (early): none is pending now.
    clearTimeout(m.retryTimer);
    m.retryTimer = undefined;
    await lifecycle.drain(ctx, m, [replica]);
    expect(m.replicas.size).toBe(1);
    expect(m.retryTimer).toBeDefined();
    lifecycle.detach(m);
  });

  it('a stop the provisioner fails leaves the replica tracked for the next pass', async () => {
    const stuck: Provisioner = Object.assign(Object.create(provisionerFor()) as SimulatedProvisioner, {
      stopReplica: () => Promise.reject(unavailable('cluster down')),
    });
    const { lifecycle, m } = setup();
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner: stuck }), spec, generation, 2);
    await lifecycle.stopAll(ctx, m);
    expect([...m.replicas.values()].map((r) => r.stopping)).toEqual([false, false]);
  });

  it('reapTerminal stops failed replicas and forgets stopped ones', async () => {
    const provisioner = provisionerFor();
    const { lifecycle, m } = setup();
    await lifecycle.startReplicas(ctx, m, createTestRuntime({ provisioner }), spec, generation, 3);
    const [failed, stopped] = [...m.replicas.keys()];
    await provisioner.crashReplica(failed!);
    await provisioner.stopReplica(ctx, stopped!);
    await lifecycle.reapTerminal(ctx, m);
    expect([...m.replicas.keys()]).toEqual([replicaIdFor(name, generation, 2)]);
    expect((await provisioner.listReplicas(ctx)).map((h) => h.replicaId)).toEqual([replicaIdFor(name, generation, 2)]);
  });
});

describe('wakeAfter', () => {
  it('keeps one wake per deployment and sets none once the reconciler stopped', async () => {
    const { lifecycle, m, passes, stop } = setup();
    lifecycle.wakeAfter(m, 10);
    lifecycle.wakeAfter(m, 10);
    await waitFor(() => m.retryTimer, (t) => t === undefined, 1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passes).toEqual([name]);
    stop();
    lifecycle.wakeAfter(m, 10);
    expect(m.retryTimer).toBeUndefined();
  });
});
