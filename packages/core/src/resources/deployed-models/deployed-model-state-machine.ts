import { defineStateMachine } from '../common/state-machine.js';
import type { DeployedModelState } from './deployed-model-schema.js';

/**
 * DEPLOYING until its deployment is READY, then DEPLOYED; UPDATING while a DEPLOYED model's deployment rolls
 * out new replicas, back to DEPLOYED after; DEPLOYING again when the deployment stops serving (FAILED, or
 * re-created). UNDEPLOYING while the deployment is being deleted or the record is removed: terminal, the
 * record is then deleted.
 */
export const deployedModelStateMachine = defineStateMachine<DeployedModelState>({
  resource: 'deployed model',
  initial: 'DEPLOYING',
  transitions: {
    STATE_UNSPECIFIED: ['DEPLOYING', 'UNDEPLOYING'],
    DEPLOYING: ['DEPLOYED', 'UNDEPLOYING'],
    DEPLOYED: ['UPDATING', 'DEPLOYING', 'UNDEPLOYING'],
    UPDATING: ['DEPLOYED', 'DEPLOYING', 'UNDEPLOYING'],
    UNDEPLOYING: [],
  },
});
