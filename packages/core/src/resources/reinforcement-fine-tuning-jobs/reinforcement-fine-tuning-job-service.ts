import { failedPrecondition } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { JobState } from '../common/schema-parts.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { ResourceService, type ListPage, type ListParams, type PreconditionOptions } from '../common/resource-service.js';
import type { GatewaySecrets } from '../common/secrets.js';
import { assertTransition } from '../common/state-machine.js';
import { reinforcementFineTuningJobDefinition } from './reinforcement-fine-tuning-job-definition.js';
import {
  reinforcementFineTuningJobResumableStates, reinforcementFineTuningJobStateMachine,
} from './reinforcement-fine-tuning-job-state-machine.js';

function stateOf(job: JsonObject): JobState {
  return (typeof job.state === 'string' ? job.state : 'JOB_STATE_UNSPECIFIED') as JobState;
}

/** Reinforcement fine-tuning jobs: create, get, list, delete, cancel and resume (no update). */
export class ReinforcementFineTuningJobService {
  readonly resources: ResourceService;

  constructor(private readonly env: ResourceEnvironment, secrets: GatewaySecrets) {
    this.resources = new ResourceService(reinforcementFineTuningJobDefinition, env, secrets);
  }

  /**
   * Creates a job in JOB_STATE_CREATING. Throws PERMISSION_DENIED, INVALID_ARGUMENT (schema, missing
   * or dangling references, another account), ALREADY_EXISTS.
   */
  create(ctx: RequestContext, accountId: string, body: unknown, reinforcementFineTuningJobId?: string): Promise<JsonObject> {
    return this.resources.create(ctx, accountId, body, reinforcementFineTuningJobId === undefined ? {} : { id: reinforcementFineTuningJobId });
  }

  get(ctx: RequestContext, name: string, readMask?: string): Promise<JsonObject> {
    return this.resources.get(ctx, name, readMask);
  }

  list(ctx: RequestContext, accountId: string, params: ListParams): Promise<ListPage> {
    return this.resources.list(ctx, accountId, params);
  }

  /** Deletes the job record in any state. NOT_FOUND when absent. */
  delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    return this.resources.delete(ctx, name, options);
  }

  /**
   * `:cancel` — moves a job that is not finished to JOB_STATE_CANCELLED and records `completedTime`.
   * Answers `{}`. FAILED_PRECONDITION from a terminal state; NOT_FOUND when absent.
   */
  async cancel(ctx: RequestContext, name: string): Promise<JsonObject> {
    this.resources.authorizeName(ctx, name, 'action');
    await this.resources.mutate(ctx, name, (job) => {
      assertTransition(reinforcementFineTuningJobStateMachine, stateOf(job), 'JOB_STATE_CANCELLED');
      job.state = 'JOB_STATE_CANCELLED';
      job.status = { code: 'CANCELLED', message: 'the job was cancelled' };
      job.completedTime = this.env.nowIso();
      return job;
    });
    return {};
  }

  /**
   * `:resume` — moves a PAUSED or FAILED job back to JOB_STATE_PENDING (clearing the failure status
   * and completion time) and answers the job. FAILED_PRECONDITION from any other state.
   */
  async resume(ctx: RequestContext, name: string): Promise<JsonObject> {
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
