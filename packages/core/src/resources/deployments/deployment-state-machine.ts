import { defineStateMachine } from '../common/state-machine.js';
import type { DeploymentState } from './deployment-schema.js';

/**
 * CREATING → READY or FAILED; READY → UPDATING on a change that needs new replicas, back to READY when
 * they are up; any live state → DELETING → DELETED (soft delete, restorable with :undelete until purged:
 * DELETED → CREATING). Without a runtime reconciler (no runtime plugin), a delete goes straight to DELETED.
 */
export const deploymentStateMachine = defineStateMachine<DeploymentState>({
  resource: 'deployment',
  initial: 'CREATING',
  transitions: {
    STATE_UNSPECIFIED: ['CREATING'],
    CREATING: ['READY', 'FAILED', 'UPDATING', 'DELETING', 'DELETED'],
    READY: ['UPDATING', 'FAILED', 'DELETING', 'DELETED'],
    UPDATING: ['READY', 'FAILED', 'DELETING', 'DELETED'],
    FAILED: ['CREATING', 'UPDATING', 'DELETING', 'DELETED'],
    DELETING: ['DELETED', 'FAILED'],
    DELETED: ['CREATING'],
  },
});

/** States in which a deployment serves traffic. */
export const servingStates: ReadonlySet<DeploymentState> = new Set(['READY', 'UPDATING']);
