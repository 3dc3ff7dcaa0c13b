import { defineStateMachine } from '../common/state-machine.js';
import type { EvaluatorState } from './evaluator-schema.js';

/**
 * An evaluator is BUILDING from creation until its build (on the durable queue: code compiled, language
 * available on the host) ends ACTIVE or BUILD_FAILED (`status` says why). A change of what it runs
 * (criteria, requirements, entryPoint) builds it again: ACTIVE or BUILD_FAILED → BUILDING; a change made
 * while BUILDING restarts the build (BUILDING → BUILDING). STATE_UNSPECIFIED is only the enum's zero value.
 */
export const evaluatorStateMachine = defineStateMachine<EvaluatorState>({
  resource: 'evaluator',
  initial: 'BUILDING',
  transitions: {
    STATE_UNSPECIFIED: ['BUILDING'],
    BUILDING: ['BUILDING', 'ACTIVE', 'BUILD_FAILED'],
    ACTIVE: ['BUILDING'],
    BUILD_FAILED: ['BUILDING'],
  },
});
