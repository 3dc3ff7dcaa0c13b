import { describe, expect, it } from 'vitest';
import { replicaPhaseFromPod } from './kubernetes-provisioner.js';

describe('kubernetes pod phases', () => {
  const pod = (status: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: status as never });
  const scheduled = { type: 'PodScheduled', status: 'True' };

  it('maps pod states to replica phases', () => {
    expect(replicaPhaseFromPod(undefined).phase).toBe('pending_scheduling');
    expect(
      replicaPhaseFromPod(pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes have gpux.example/gpu' }] })),
    ).toEqual({ phase: 'pending_scheduling', message: '0/3 nodes have gpux.example/gpu' });
    expect(replicaPhaseFromPod(pod({ phase: 'Pending', conditions: [scheduled], initContainerStatuses: [{ state: { running: {} } }] })).phase).toBe('downloading');
    expect(
      replicaPhaseFromPod(pod({ phase: 'Running', conditions: [scheduled], initContainerStatuses: [{ state: { terminated: { exitCode: 0 } } }] })).phase,
    ).toBe('initializing');
    expect(replicaPhaseFromPod(pod({ phase: 'Running', conditions: [scheduled, { type: 'Ready', status: 'True' }] })).phase).toBe('ready');
    expect(replicaPhaseFromPod(pod({ phase: 'Failed' })).phase).toBe('failed');
    expect(
      replicaPhaseFromPod(pod({ phase: 'Pending', conditions: [scheduled], containerStatuses: [{ name: 'engine', state: { waiting: { reason: 'ImagePullBackOff' } } }] })),
    ).toMatchObject({ phase: 'failed', message: 'engine: ImagePullBackOff' });
    expect(
      replicaPhaseFromPod(pod({ phase: 'Running', conditions: [scheduled], containerStatuses: [{ name: 'engine', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] }))
        .phase,
    ).toBe('failed');
  });
});
