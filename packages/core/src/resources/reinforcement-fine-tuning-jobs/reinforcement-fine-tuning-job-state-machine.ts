import type { JobState } from '../common/schema-parts.js';
import { defineStateMachine } from '../common/state-machine.js';

/**
 * Lifecycle of a reinforcement fine-tuning job, created in JOB_STATE_CREATING:
 * CREATING → (CREATING_INPUT_DATASET →) VALIDATING → PENDING (queued for capacity) → RUNNING, which
 * alternates with IDLE (waiting on rollouts or the evaluator) and ends WRITING_RESULTS → COMPLETED, or
 * EARLY_STOPPED when a stopping criterion fires. Lost workers: RUNNING → RE_QUEUEING → PENDING.
 *
 * - PAUSED (account suspension, manual intervention) is left only by `resume` → PENDING, by failing,
 *   expiring, or being cancelled.
 * - `resume` also restarts a FAILED job (FAILED → PENDING), from its last checkpoint. CANCELLED,
 *   EARLY_STOPPED, COMPLETED and EXPIRED are final decisions and are not resumable.
 * - `cancel` moves every non-terminal state straight to CANCELLED (the trainer stops when it sees the
 *   state); CANCELLING is for a runtime that needs time to stop and later reports CANCELLED or FAILED.
 * - Terminal states lead only to the background clean-up DELETING → DELETING_CLEANING_UP; the API's
 *   DELETE removes the record at once in any state.
 */
export const reinforcementFineTuningJobStateMachine = defineStateMachine<JobState>({
  resource: 'reinforcement fine-tuning job',
  initial: 'JOB_STATE_CREATING',
  transitions: {
    JOB_STATE_UNSPECIFIED: ['JOB_STATE_CREATING'],
    JOB_STATE_CREATING: ['JOB_STATE_CREATING_INPUT_DATASET', 'JOB_STATE_VALIDATING', 'JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_CREATING_INPUT_DATASET: ['JOB_STATE_VALIDATING', 'JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_VALIDATING: ['JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_PENDING: ['JOB_STATE_RUNNING', 'JOB_STATE_PAUSED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'],
    JOB_STATE_RUNNING: [
      'JOB_STATE_IDLE', 'JOB_STATE_WRITING_RESULTS', 'JOB_STATE_COMPLETED', 'JOB_STATE_EARLY_STOPPED', 'JOB_STATE_RE_QUEUEING',
      'JOB_STATE_PAUSED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED',
    ],
    JOB_STATE_IDLE: ['JOB_STATE_RUNNING', 'JOB_STATE_PAUSED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_RE_QUEUEING: ['JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_PAUSED: ['JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'],
    JOB_STATE_WRITING_RESULTS: ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_CANCELLING: ['JOB_STATE_CANCELLED', 'JOB_STATE_FAILED'],
    JOB_STATE_COMPLETED: ['JOB_STATE_DELETING'],
    JOB_STATE_EARLY_STOPPED: ['JOB_STATE_DELETING'],
    JOB_STATE_FAILED: ['JOB_STATE_PENDING', 'JOB_STATE_DELETING'],
    JOB_STATE_CANCELLED: ['JOB_STATE_DELETING'],
    JOB_STATE_EXPIRED: ['JOB_STATE_DELETING'],
    JOB_STATE_DELETING: ['JOB_STATE_DELETING_CLEANING_UP'],
    JOB_STATE_DELETING_CLEANING_UP: [],
  },
});

/** States `resume` accepts; it moves them to JOB_STATE_PENDING. */
export const reinforcementFineTuningJobResumableStates: readonly JobState[] = ['JOB_STATE_PAUSED', 'JOB_STATE_FAILED'];
