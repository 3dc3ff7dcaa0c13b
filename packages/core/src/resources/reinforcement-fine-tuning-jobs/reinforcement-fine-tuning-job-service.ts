import { failedPrecondition } from '../../errors/index.js';
import type { Principal, RequestContext } from '../../kernel/request-context.js';
import { parseResourceName } from '../../names/resource-name.js';
import { crudService } from '../common/crud-service.js';
import type { PreconditionOptions } from '../common/resource-service.js';
import type { JobState } from '../common/schema-parts.js';
import { assertTransition } from '../common/state-machine.js';
import { reinforcementFineTuningJobDefinition } from './reinforcement-fine-tuning-job-definition.js';
import { resumeRftRun, rftRunRecordName, rftWork, startRftRun } from './reinforcement-fine-tuning-job-runs.js';
import type { ReinforcementFineTuningJob } from './reinforcement-fine-tuning-job-schema.js';
import {
  reinforcementFineTuningJobResumableStates, reinforcementFineTuningJobStateMachine, reinforcementFineTuningJobStoppedStates,
} from './reinforcement-fine-tuning-job-state-machine.js';

function stateOf(job: ReinforcementFineTuningJob): JobState {
  return job.state ?? 'JOB_STATE_UNSPECIFIED';
}

/** Who the job's rollouts run as: the caller (they reach the model with the creator's rights). */
function creatorOf(ctx: RequestContext, accountId: string): Principal {
  return ctx.principal ?? { userName: `accounts/${accountId}/users/system`, accountId, role: 'admin' };
}

/**
 * Reinforcement fine-tuning jobs: create, get, list and delete as the definition makes them, plus cancel
 * and resume. No update. Create starts a job in JOB_STATE_CREATING and, in the same transaction, its run
 * record and its work on the durable queue (run by `RftJobRunner`, `packages/core/src/rft`); it throws
 * PERMISSION_DENIED, INVALID_ARGUMENT for the schema, missing or dangling references or another account,
 * FAILED_PRECONDITION for an evaluator whose build failed, ALREADY_EXISTS.
 */
export class ReinforcementFineTuningJobService extends crudService(reinforcementFineTuningJobDefinition, ['get', 'list']) {
  async create(ctx: RequestContext, accountId: string, body: unknown, id?: string): Promise<ReinforcementFineTuningJob> {
    return this.resources.env.storage.transaction(ctx, async (tx, txCtx) => {
      const job = await this.resources.create(txCtx, accountId, body, id === undefined ? {} : { id });
      await startRftRun(txCtx, tx, job.name ?? '', creatorOf(ctx, accountId));
      return job;
    });
  }

  /**
   * `:cancel` — a job whose work is queued or running moves to JOB_STATE_CANCELLING: its worker stops the
   * rollouts, records `acceleratorSeconds` and `completedTime` and moves it to JOB_STATE_CANCELLED. A
   * PAUSED job (nothing running) is CANCELLED at once. Answers `{}`. FAILED_PRECONDITION from a terminal
   * state or CANCELLING; NOT_FOUND when absent.
   */
  async cancel(ctx: RequestContext, name: string): Promise<Record<string, never>> {
    this.resources.authorizeName(ctx, name, 'action');
    await this.resources.mutate(ctx, name, (job) => {
      const state = stateOf(job);
      const to: JobState = state === 'JOB_STATE_PAUSED' ? 'JOB_STATE_CANCELLED' : 'JOB_STATE_CANCELLING';
      assertTransition(reinforcementFineTuningJobStateMachine, state, to);
      job.state = to;
      job.status = { code: 'CANCELLED', message: 'the job was cancelled' };
      if (to === 'JOB_STATE_CANCELLED') job.completedTime = this.resources.env.nowIso();
      return job;
    });
    return {};
  }

  /**
   * `:resume` — moves a PAUSED, FAILED or CANCELLED job back to JOB_STATE_PENDING (clearing its status and
   * completion time), queues its work again and answers the job. The work continues from the run record's
   * last checkpoint, never from the start. FAILED_PRECONDITION from any other state.
   */
  async resume(ctx: RequestContext, name: string): Promise<ReinforcementFineTuningJob> {
    this.resources.authorizeName(ctx, name, 'action');
    const { accountId } = parseResourceName(name, 'reinforcementFineTuningJobs');
    return this.resources.env.storage.transaction(ctx, async (tx, txCtx) => {
      const job = await this.resources.mutate(txCtx, name, (current) => {
        const state = stateOf(current);
        if (!reinforcementFineTuningJobResumableStates.includes(state)) {
          throw failedPrecondition(`${name} is ${state}; only ${reinforcementFineTuningJobResumableStates.join(', ')} jobs can be resumed`, { reason: 'INVALID_STATE_TRANSITION' });
        }
        assertTransition(reinforcementFineTuningJobStateMachine, state, 'JOB_STATE_PENDING');
        current.state = 'JOB_STATE_PENDING';
        delete current.status;
        delete current.completedTime;
        return current;
      });
      await resumeRftRun(txCtx, tx, name, creatorOf(ctx, accountId));
      return job;
    });
  }

  /**
   * Deletes the job in any state. Its run record goes at once when no work runs; work is queued to clean
   * up after it (the trainer's checkpoints, the add-on serving the policy, a temporary deployment), and a
   * worker running the job stops when it notices the record gone.
   */
  async delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    this.resources.authorizeName(ctx, name, 'delete');
    parseResourceName(name, 'reinforcementFineTuningJobs');
    await this.resources.env.storage.transaction(ctx, async (tx, txCtx) => {
      const stored = await this.resources.getStored(txCtx, name);
      await this.resources.remove(txCtx, name, options);
      const run = await tx.resources.get(txCtx, rftRunRecordName(name));
      if (!run) return;
      const stopped = reinforcementFineTuningJobStoppedStates.includes(stateOf(stored.data));
      await tx.queue.enqueue(txCtx, rftWork(name, `delete-${stopped ? 'stopped' : 'running'}-${String(run.data.resumes ?? 0)}`));
    });
  }
}
