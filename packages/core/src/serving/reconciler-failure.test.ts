import { describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import { silentLogger } from '../ports/logger.js';
import type { ReplicaPhase } from '../ports/provisioner.js';
import { ReplicaTracker } from '../runtime/replica-tracker.js';
import { simulatedProvisioner } from '../runtime/simulated-provisioner.js';
import { exhaustedRetries, failDeployment, noteRetry, reconcileFailed, type FailureSteps } from './reconciler-failure.js';
import { newManaged, type Managed } from './reconciler-model.js';
import type { Deployment, DeploymentState } from '../resources/deployments/deployment-schema.js';

const ctx = systemContext('test');
const name = 'accounts/acme/deployments/d';
const deploymentIn = (state: DeploymentState): Deployment => ({ name, createTime: '', updateTime: '', state });
/** Never asked to do anything here: the steps are recorded. */
const provisioner = simulatedProvisioner();

function withReplica(m: Managed, phase: ReplicaPhase, draining = false): void {
  const handle = new ReplicaTracker(`d-${m.replicas.size}`, m.name, { baseModel: 'accounts/acme/models/base', acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 1 });
  if (phase !== 'pending_scheduling') handle.transition(phase);
  m.replicas.set(handle.replicaId, { handle, provisioner, generation: 'abc123', index: 0, unsubscribe: () => {}, draining, drainDeadline: 0, stopping: false });
}

function recordingSteps(): { steps: FailureSteps; calls: string[] } {
  const calls: string[] = [];
  const steps: FailureSteps = {
    replicas: { stopAll: async () => void calls.push('stopAll') },
    logger: silentLogger,
    write: async (_ctx, _m, expected, change) => void calls.push(`write ${expected} → ${JSON.stringify(change)}`),
    syncRecords: async (_ctx, _m, state) => void calls.push(`sync ${state}`),
  };
  return { steps, calls };
}

describe('noteRetry', () => {
  it('asks to retry a FAILED deployment that is updated or scaled', () => {
    for (const kind of ['updated', 'scaled'] as const) {
      const m = newManaged(name);
      noteRetry(m, { kind, name, deployment: deploymentIn('FAILED') });
      expect(m.retryRequested).toBe(true);
    }
    const m = newManaged(name);
    noteRetry(m, { kind: 'updated', name, deployment: deploymentIn('READY') });
    noteRetry(m, { kind: 'created', name, deployment: deploymentIn('FAILED') });
    expect(m.retryRequested).toBe(false);
  });

  it('an undeleted deployment starts with no failure counted', () => {
    const m = newManaged(name);
    Object.assign(m, { failures: 4, nextStartAt: Date.now() + 1000 });
    noteRetry(m, { kind: 'undeleted', name, deployment: deploymentIn('UPDATING') });
    expect(m).toMatchObject({ failures: 0, nextStartAt: 0, retryRequested: false });
  });
});

describe('exhaustedRetries', () => {
  it('fails the deployment after maxConsecutiveFailures failures when no replica serves', () => {
    const m = newManaged(name);
    Object.assign(m, { failures: 2, lastFailure: 'out of memory' });
    expect(exhaustedRetries(m, 3)).toBeUndefined();
    m.failures = 3;
    withReplica(m, 'initializing');
    withReplica(m, 'ready', true);
    expect(exhaustedRetries(m, 3)).toBe('3 replicas failed in a row and none is ready; last failure: out of memory');
    withReplica(m, 'ready');
    expect(exhaustedRetries(m, 3)).toBeUndefined();
  });
});

describe('failed deployments', () => {
  it('failDeployment stops the replicas, then writes FAILED with the status and moves the records', async () => {
    const { steps, calls } = recordingSteps();
    await failDeployment(ctx, steps, newManaged(name), 'CREATING', { code: 'UNAVAILABLE', message: 'no luck' });
    expect(calls).toEqual(['stopAll', 'write CREATING → {"state":"FAILED","status":{"code":"UNAVAILABLE","message":"no luck"}}', 'sync FAILED']);
  });

  it('a FAILED deployment keeps no replicas until a retry, which resets the failures and moves it to UPDATING', async () => {
    const m = newManaged(name);
    const held = recordingSteps();
    expect(await reconcileFailed(ctx, held.steps, m)).toBe(false);
    expect(held.calls).toEqual(['stopAll', 'write FAILED → {}', 'sync FAILED']);

    Object.assign(m, { retryRequested: true, failures: 3, nextStartAt: Date.now() + 1000 });
    const retried = recordingSteps();
    expect(await reconcileFailed(ctx, retried.steps, m)).toBe(true);
    expect(retried.calls).toEqual(['write FAILED → {"state":"UPDATING","status":null}']);
    expect(m).toMatchObject({ retryRequested: false, failures: 0, nextStartAt: 0 });
  });
});
