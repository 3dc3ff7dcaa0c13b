import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceEngine, type ReferenceEngine } from '../engine/reference-engine.js';
import { ReplicaTracker } from './replica-tracker.js';
import { simulatedProvisioner } from './simulated-provisioner.js';
import { staticProvisioner } from './static-provisioner.js';
import { systemContext } from '../contracts/request-context.js';
import { type Provisioner, type ReplicaPhase, isReplicaPhaseTransitionAllowed, replicaPhases, type ReplicaSpec } from '../ports/provisioner.js';

const ctx = systemContext('test');
const spec = (acceleratorCount = 1, extra: Partial<ReplicaSpec> = {}): ReplicaSpec => ({
  baseModel: 'accounts/a/models/m',
  acceleratorType: 'GPUX_H100_80GB',
  acceleratorCount,
  ...extra,
});
const fastDelays = { schedulingMs: 5, downloadingMs: 5, initializingMs: 5 };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
function own<T extends Provisioner | ReferenceEngine>(value: T): T {
  cleanups.push(() => value.close());
  return value;
}

describe('replica phases', () => {
  it('only move forward and end in failed or stopped', () => {
    const allowed = (from: ReplicaPhase, to: ReplicaPhase) => isReplicaPhaseTransitionAllowed(from, to);
    expect(allowed('pending_scheduling', 'downloading')).toBe(true);
    expect(allowed('pending_scheduling', 'ready')).toBe(true);
    expect(allowed('ready', 'failed')).toBe(true);
    expect(allowed('ready', 'initializing')).toBe(false);
    expect(allowed('downloading', 'downloading')).toBe(false);
    for (const to of replicaPhases) {
      expect(allowed('failed', to)).toBe(false);
      expect(allowed('stopped', to)).toBe(false);
    }
  });

  it('tracker ignores illegal transitions, notifies listeners and times out settle', async () => {
    const tracker = new ReplicaTracker('r', 'd', spec());
    const seen: string[] = [];
    const off = tracker.onPhase((e) => seen.push(`${e.from}>${e.to}`));
    tracker.onPhase(() => {
      throw new Error('a bad listener');
    });
    expect(tracker.transition('initializing')).toBe(true);
    expect(tracker.transition('downloading')).toBe(false);
    await expect(tracker.settled({ timeoutMs: 10 })).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    const controller = new AbortController();
    const waiting = tracker.settled({ signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'CANCELLED' });
    const settling = tracker.settled();
    tracker.transition('ready', { endpoint: 'http://x' });
    expect((await settling).endpoint).toBe('http://x');
    off();
    tracker.transition('stopped');
    expect(seen).toEqual(['pending_scheduling>initializing', 'initializing>ready']);
  });
});

describe('simulated provisioner', () => {
  it('walks every phase and serves the model from a loopback reference engine', async () => {
    const provisioner = own(simulatedProvisioner({ delays: fastDelays }));
    const handle = await provisioner.startReplica(ctx, {
      replicaId: 'r1',
      deployment: 'accounts/a/deployments/d',
      spec: spec(2, { servedModelId: 'my-model', maxContextLength: 1024 }),
    });
    const phases: string[] = [handle.status().phase];
    handle.onPhase((e) => phases.push(e.to));
    const status = await handle.settled({ timeoutMs: 5000 });
    expect(phases).toEqual(['pending_scheduling', 'downloading', 'initializing', 'ready']);
    expect(status.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const models = (await (await fetch(`${status.endpoint}/v1/models`)).json()) as { data: { id: string; max_model_len: number }[] };
    expect(models.data).toMatchObject([{ id: 'my-model', max_model_len: 1024 }]);
    expect(provisioner.capacity('GPUX_H100_80GB')).toEqual({ total: 64, used: 2 });
    expect(provisioner.engineOf('r1')?.url).toBe(status.endpoint);
    await provisioner.stopReplica(ctx, 'r1');
    expect(provisioner.capacity('GPUX_H100_80GB').used).toBe(0);
    await expect(fetch(`${status.endpoint}/v1/models`)).rejects.toThrow();
  });

  it('leaves replicas pending_scheduling while the inventory is exhausted', async () => {
    const provisioner = own(simulatedProvisioner({ delays: fastDelays, inventory: { GPUX_H100_80GB: 4 } }));
    const big = await provisioner.startReplica(ctx, { replicaId: 'big', deployment: 'd', spec: spec(4) });
    const next = await provisioner.startReplica(ctx, { replicaId: 'next', deployment: 'd', spec: spec(2) });
    await big.settled({ timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 50));
    expect(next.status().phase).toBe('pending_scheduling');
    expect(next.status().message).toMatch(/waiting for 2 × GPUX_H100_80GB \(0 of 4 free\)/);
    await provisioner.stopReplica(ctx, 'big');
    expect((await next.settled({ timeoutMs: 5000 })).phase).toBe('ready');
    provisioner.setInventory('GPUX_H100_80GB', 2);
    const third = await provisioner.startReplica(ctx, { replicaId: 'third', deployment: 'd', spec: spec(1) });
    await new Promise((r) => setTimeout(r, 30));
    expect(third.status().phase).toBe('pending_scheduling');
    provisioner.setInventory('GPUX_H100_80GB', 3);
    expect((await third.settled({ timeoutMs: 5000 })).phase).toBe('ready');
  });

  it('injects failures by count and by predicate, in the chosen phase, and frees capacity', async () => {
    const provisioner = own(simulatedProvisioner({ delays: fastDelays, failures: { failNextReplicas: 1, failIn: 'downloading' } }));
    const first = await provisioner.startReplica(ctx, { replicaId: 'f1', deployment: 'd', spec: spec(1) });
    const phases: string[] = [];
    first.onPhase((e) => phases.push(e.to));
    const failed = await first.settled({ timeoutMs: 5000 });
    expect(failed.phase).toBe('failed');
    expect(failed.message).toMatch(/injected/);
    expect(phases).toEqual(['downloading', 'failed']);
    expect(provisioner.capacity('GPUX_H100_80GB').used).toBe(0);
    expect((await provisioner.listReplicas(ctx)).map((h) => h.status().phase)).toEqual(['failed']);
    const second = await provisioner.startReplica(ctx, { replicaId: 'f2', deployment: 'd', spec: spec(1) });
    expect((await second.settled({ timeoutMs: 5000 })).phase).toBe('ready');
    provisioner.injectFailures({ shouldFail: (request) => (request.replicaId === 'f3' ? 'no luck' : false) });
    const third = await provisioner.startReplica(ctx, { replicaId: 'f3', deployment: 'd', spec: spec(1) });
    expect(await third.settled({ timeoutMs: 5000 })).toMatchObject({ phase: 'failed', message: 'no luck' });
    // Restarting a failed replica id starts it afresh.
    provisioner.injectFailures({});
    const again = await provisioner.startReplica(ctx, { replicaId: 'f3', deployment: 'd', spec: spec(1) });
    expect((await again.settled({ timeoutMs: 5000 })).phase).toBe('ready');
  });

  it('crashes a ready replica on demand and closes everything on close', async () => {
    const provisioner = simulatedProvisioner({ delays: fastDelays, engine: { speed: { tokensPerSecond: 1000 } } });
    const handle = await provisioner.startReplica(ctx, { replicaId: 'c1', deployment: 'd', spec: spec(1) });
    const { endpoint } = await handle.settled({ timeoutMs: 5000 });
    await provisioner.crashReplica('c1', 'out of memory');
    expect(handle.status()).toMatchObject({ phase: 'failed', message: 'out of memory' });
    await expect(fetch(`${endpoint}/health`)).rejects.toThrow();
    const other = await provisioner.startReplica(ctx, { replicaId: 'c2', deployment: 'd', spec: spec(1) });
    await provisioner.close();
    expect(other.status().phase).toBe('stopped');
    expect(await provisioner.listReplicas(ctx)).toEqual([]);
  });
});

describe('static provisioner', () => {
  it('claims configured servers, probes /v1/models and waits for a free one', async () => {
    const engine = own(await startReferenceEngine({ modelIds: ['accounts/a/models/m'] }));
    const provisioner = own(staticProvisioner({ servers: { 'accounts/a/models/m': `${engine.url}/v1/` }, pollIntervalMs: 10 }));
    const first = await provisioner.startReplica(ctx, { replicaId: 's1', deployment: 'd', spec: spec() });
    expect((await first.settled({ timeoutMs: 5000 })).endpoint).toBe(engine.url);
    const second = await provisioner.startReplica(ctx, { replicaId: 's2', deployment: 'd', spec: spec() });
    expect(second.status().phase).toBe('pending_scheduling');
    expect(second.status().message).toMatch(/in use/);
    await provisioner.stopReplica(ctx, 's1');
    expect((await second.settled({ timeoutMs: 5000 })).phase).toBe('ready');
  });

  it('fails a replica whose server never answers, and refuses unknown models', async () => {
    const provisioner = own(staticProvisioner({ servers: { 'accounts/a/models/m': 'http://127.0.0.1:9' }, pollIntervalMs: 5, readyTimeoutMs: 50 }));
    const handle = await provisioner.startReplica(ctx, { replicaId: 's1', deployment: 'd', spec: spec() });
    const status = await handle.settled({ timeoutMs: 5000 });
    expect(status.phase).toBe('failed');
    expect(status.message).toMatch(/did not answer/);
    await expect(provisioner.startReplica(ctx, { replicaId: 's2', deployment: 'd', spec: spec(1, { baseModel: 'accounts/a/models/other' }) })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
    });
  });
});
