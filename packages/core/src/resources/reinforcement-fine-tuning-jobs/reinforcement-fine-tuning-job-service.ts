import { failedPrecondition } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { crudService } from '../common/crud-service.js';
import type { JobState } from '../common/schema-parts.js';
import { assertTransition } from '../common/state-machine.js';
import { reinforcementFineTuningJobDefinition } from './reinforcement-fine-tuning-job-definition.js';
import type { ReinforcementFineTuningJob } from './reinforcement-fine-tuning-job-schema.js';
import {
  reinforcementFineTuningJobResumableStates, reinforcementFineTuningJobStateMachine,
} from './reinforcement-fine-tuning-job-state-machine.js';

function stateOf(job: ReinforcementFineTuningJob): JobState {
  return job.state ?? 'JOB_STATE_UNSPECIFIED';
}

/**
 * Reinforcement fine-tuning jobs: create, get, list and delete as the definition makes them (create
 * starts a job in JOB_STATE_CREATING and throws PERMISSION_DENIED, INVALID_ARGUMENT for the schema,
 * missing or dangling references or another account, ALREADY_EXISTS; delete removes the record in any
 * state), plus cancel and resume. No update.
 */
export class ReinforcementFineTuningJobService extends crudService(reinforcementFineTuningJobDefinition, ['create', 'get', 'list', 'delete']) {

  /**
   * `:cancel` — moves a job that is not finished to JOB_STATE_CANCELLED and records `completedTime`.
   * Answers `{}`. FAILED_PRECONDITION from a terminal state; NOT_FOUND when absent.
   */
  async cancel(ctx: RequestContext, name: string): Promise<Record<string, never>> {
    this.resources.authorizeName(ctx, name, 'action');
    await this.resources.mutate(ctx, name, (job) => {
      assertTransition(reinforcementFineTuningJobStateMachine, stateOf(job), 'JOB_STATE_CANCELLED');
      job.state = 'JOB_STATE_CANCELLED';
      job.status = { code: 'CANCELLED', message: 'the job was cancelled' };
      job.completedTime = this.resources.env.nowIso();
      return job;
    });
    return {};
  }

  /**
   * `:resume` — moves a PAUSED or FAILED job back to JOB_STATE_PENDING (clearing the failure status
   * and completion time) and answers the job. FAILED_PRECONDITION from any other state.
   */
  async resume(ctx: RequestContext, name: string): Promise<ReinforcementFineTuningJob> {
    this.resources.authorizeName(ctx, name, 'action');
    return this.resources.mutate(ctx, name, (job) => {
      const state = stateOf(job);
      if (!reinforcementFineTuningJobResumableStates.includes(state)) {
        throw failedPrecondition(`${name} is ${state}; only ${reinforcementFineTuningJobResumableStates.join(' or ')} jobs can be resumed`, { reason: 'INVALID_STATE_TRANSITION' });
      }
      assertTransition(reinforcementFineTuningJobStateMachine, state, 'JOB_STATE_PENDING');
      job.state = 'JOB_STATE_PENDING';
      delete job.status;
      delete job.completedTime;
      return job;
    });
  }
}
