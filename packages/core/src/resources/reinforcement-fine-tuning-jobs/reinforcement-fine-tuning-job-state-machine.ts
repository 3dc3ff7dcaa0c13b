import type { JobState } from '../common/schema-parts.js';
import { defineStateMachine } from '../common/state-machine.js';

/**
 * Lifecycle of a reinforcement fine-tuning job, created in JOB_STATE_CREATING:
 * CREATING → (CREATING_INPUT_DATASET →) VALIDATING → PENDING (queued for capacity) → RUNNING, which
 * alternates with IDLE (waiting on rollouts or the evaluator) and ends WRITING_RESULTS → COMPLETED, or
 * EARLY_STOPPED when a stopping criterion fires. Lost workers: RUNNING → RE_QUEUEING → PENDING.
 *
 * - PAUSED (the job's work failed too often for a reason that may pass, e.g. the trainer or capacity
 *   unavailable: a person looks, then resumes) is left only by `resume` → PENDING, by failing, expiring,
 *   or being cancelled.
 * - `resume` also restarts a FAILED or CANCELLED job (→ PENDING), from its last checkpoint.
 *   EARLY_STOPPED, COMPLETED and EXPIRED are final and are not resumable.
 * - `cancel` moves a job whose work is queued or running to CANCELLING; its worker stops the rollouts,
 *   records `acceleratorSeconds`, releases capacity and moves it to CANCELLED. A PAUSED job (no work
 *   running) goes straight to CANCELLED.
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
    JOB_STATE_VALIDATING: ['JOB_STATE_PENDING', 'JOB_STATE_PAUSED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_PENDING: ['JOB_STATE_RUNNING', 'JOB_STATE_PAUSED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'],
    JOB_STATE_RUNNING: [
      'JOB_STATE_IDLE', 'JOB_STATE_WRITING_RESULTS', 'JOB_STATE_COMPLETED', 'JOB_STATE_EARLY_STOPPED', 'JOB_STATE_RE_QUEUEING',
      'JOB_STATE_PAUSED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED',
    ],
    JOB_STATE_IDLE: ['JOB_STATE_RUNNING', 'JOB_STATE_PAUSED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_RE_QUEUEING: ['JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_PAUSED: ['JOB_STATE_PENDING', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'],
    JOB_STATE_WRITING_RESULTS: ['JOB_STATE_COMPLETED', 'JOB_STATE_EARLY_STOPPED', 'JOB_STATE_PAUSED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLING', 'JOB_STATE_CANCELLED'],
    JOB_STATE_CANCELLING: ['JOB_STATE_CANCELLED', 'JOB_STATE_FAILED'],
    JOB_STATE_COMPLETED: ['JOB_STATE_DELETING'],
    JOB_STATE_EARLY_STOPPED: ['JOB_STATE_DELETING'],
    JOB_STATE_FAILED: ['JOB_STATE_PENDING', 'JOB_STATE_DELETING'],
    JOB_STATE_CANCELLED: ['JOB_STATE_PENDING', 'JOB_STATE_DELETING'],
    JOB_STATE_EXPIRED: ['JOB_STATE_DELETING'],
    JOB_STATE_DELETING: ['JOB_STATE_DELETING_CLEANING_UP'],
    JOB_STATE_DELETING_CLEANING_UP: [],
  },
});

/** States `resume` accepts; it moves them to JOB_STATE_PENDING. */
export const reinforcementFineTuningJobResumableStates: readonly JobState[] = ['JOB_STATE_PAUSED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED'];

/** States in which the job's queue work has nothing more to do (a resume or a clean-up may queue new work). */
export const reinforcementFineTuningJobStoppedStates: readonly JobState[] = [
  'JOB_STATE_COMPLETED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED', 'JOB_STATE_EARLY_STOPPED', 'JOB_STATE_PAUSED',
  'JOB_STATE_DELETING', 'JOB_STATE_DELETING_CLEANING_UP',
];
