import { defineStateMachine } from '../common/state-machine.js';
import type { BatchInferenceJobState } from './batch-inference-job-schema.js';

/**
 * Lifecycle of a batch inference job, created in JOB_STATE_CREATING:
 * CREATING → (CREATING_INPUT_DATASET →) VALIDATING → PENDING (queued for capacity) → RUNNING →
 * WRITING_RESULTS → COMPLETED. A running job that loses its workers goes RE_QUEUEING → PENDING; one
 * not started or finished within its time limit is EXPIRED. Any state before WRITING_RESULTS can
 * fail or be cancelled. COMPLETED, FAILED, CANCELLED and EXPIRED are terminal for the work; from
 * them only the asynchronous clean-up DELETING → DELETING_CLEANING_UP remains. The API's DELETE
 * removes the record at once in any state (a worker that finds its job gone stops), so these two
 * states are for background clean-up of output files.
 */
export const batchInferenceJobStateMachine = defineStateMachine<BatchInferenceJobState>({
  resource: 'batch inference job',
  initial: 'JOB_STATE_CREATING',
  transitions: {
    JOB_STATE_UNSPECIFIED: ['JOB_STATE_CREATING'],
    JOB_STATE_CREATING: ['JOB_STATE_CREATING_INPUT_DATASET', 'JOB_STATE_VALIDATING', 'JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED'],
    JOB_STATE_CREATING_INPUT_DATASET: ['JOB_STATE_VALIDATING', 'JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED'],
    JOB_STATE_VALIDATING: ['JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED'],
    JOB_STATE_PENDING: ['JOB_STATE_RUNNING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'],
    JOB_STATE_RUNNING: ['JOB_STATE_WRITING_RESULTS', 'JOB_STATE_RE_QUEUEING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'],
    JOB_STATE_RE_QUEUEING: ['JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'],
    JOB_STATE_WRITING_RESULTS: ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED'],
    JOB_STATE_COMPLETED: ['JOB_STATE_DELETING'],
    JOB_STATE_FAILED: ['JOB_STATE_DELETING'],
    JOB_STATE_CANCELLED: ['JOB_STATE_DELETING'],
    JOB_STATE_EXPIRED: ['JOB_STATE_DELETING'],
    JOB_STATE_DELETING: ['JOB_STATE_DELETING_CLEANING_UP'],
    JOB_STATE_DELETING_CLEANING_UP: [],
  },
});

/** States in which a job does no more work (a continuation may start from them). */
export const batchInferenceJobTerminalStates: readonly BatchInferenceJobState[] = [
  'JOB_STATE_COMPLETED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED',
];
