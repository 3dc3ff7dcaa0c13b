import type { RequestContext } from '../../kernel/request-context.js';
import type { EvaluatorBuildResult } from '../../ports/evaluator-runner.js';
import type { EnqueueRequest } from '../../ports/storage.js';
import { compileValidator } from '../../validation/schema-validator.js';
import type { QueueWakeups } from '../../workers/queue-wakeups.js';
import { crudService } from '../common/crud-service.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import type { PreconditionOptions } from '../common/resource-service.js';
import type { GatewaySecrets } from '../common/secrets.js';
import { assertTransition } from '../common/state-machine.js';
import { evaluatorDefinition } from './evaluator-definition.js';
import { evaluatorBuildKey } from './evaluator-rules.js';
import type { Evaluator } from './evaluator-schema.js';
import { evaluatorStateMachine } from './evaluator-state-machine.js';

/** The durable queue that builds evaluators. */
export const evaluatorBuildQueue = 'berth.evaluators.build';

/** The build of `evaluator` as it is now (the handler skips it once the evaluator has changed again). */
export function evaluatorBuildWork(evaluator: Evaluator): EnqueueRequest {
  return { queue: evaluatorBuildQueue, payload: { name: evaluator.name ?? '', buildKey: evaluatorBuildKey(evaluator) }, maxAttempts: 5 };
}

const validateWrapper = compileValidator({ type: 'object', properties: { evaluator: { type: 'object' }, evaluatorId: { type: 'string' } } }, 'request body');

/**
 * Evaluators: create (body `{evaluator, evaluatorId}`), get, list, update, delete. A new evaluator, or
 * one whose criteria, requirements or entryPoint change, is stored BUILDING with its build enqueued in
 * the same transaction; a queue worker runs the build through the `EvaluatorRunner` and records ACTIVE
 * or BUILD_FAILED (`finishBuild`). Throws PERMISSION_DENIED, INVALID_ARGUMENT (schema, rules),
 * ALREADY_EXISTS, NOT_FOUND, ABORTED (stale etag).
 */
export class EvaluatorService extends crudService(evaluatorDefinition, ['get', 'list', 'delete']) {
  constructor(env: ResourceEnvironment, secrets: GatewaySecrets, private readonly wakeups?: QueueWakeups) {
    super(env, secrets);
  }

  async create(ctx: RequestContext, accountId: string, body: unknown): Promise<Evaluator> {
    validateWrapper(body ?? {});
    const request = (body ?? {}) as { evaluator?: unknown; evaluatorId?: string };
    const created = await this.resources.env.storage.transaction(ctx, async (tx, txCtx) => {
      const evaluator = await this.resources.create(txCtx, accountId, request.evaluator ?? {}, request.evaluatorId === undefined ? {} : { id: request.evaluatorId });
      await tx.queue.enqueue(txCtx, evaluatorBuildWork(evaluator));
      return evaluator;
    });
    this.wakeups?.wake();
    return created;
  }

  /**
   * PATCH. A change of what the evaluator runs (criteria, requirements, entryPoint) moves it to BUILDING
   * and enqueues a new build; metadata (displayName, description, defaultDataset, rollupSettings…) does not.
   */
  async update(ctx: RequestContext, name: string, body: unknown, updateMask?: string, options: PreconditionOptions = {}): Promise<Evaluator> {
    let rebuild = false;
    const updated = await this.resources.env.storage.transaction(ctx, async (tx, txCtx) => {
      const previous = await this.resources.getStored(txCtx, name);
      const next = await this.resources.update(txCtx, name, body, updateMask, options);
      if (evaluatorBuildKey(next) === evaluatorBuildKey(previous.data)) return next;
      rebuild = true;
      const building = await this.resources.mutate(txCtx, name, (evaluator) => {
        assertTransition(evaluatorStateMachine, evaluator.state ?? 'STATE_UNSPECIFIED', 'BUILDING');
        evaluator.state = 'BUILDING';
        delete evaluator.status;
        return evaluator;
      });
      await tx.queue.enqueue(txCtx, evaluatorBuildWork(building));
      return building;
    });
    if (rebuild) this.wakeups?.wake();
    return updated;
  }

  /**
   * Records a build's result: ACTIVE, or BUILD_FAILED with `status` (INVALID_ARGUMENT for the code,
   * FAILED_PRECONDITION for what the host lacks). Ignored (answers undefined) when the evaluator is gone,
   * no longer BUILDING, or changed since the build was enqueued (`buildKey`).
   */
  async finishBuild(ctx: RequestContext, name: string, buildKey: string, result: EvaluatorBuildResult): Promise<Evaluator | undefined> {
    const stored = await this.resources.env.storage.resources.get(ctx, name);
    if (!stored) return undefined;
    let applied = false;
    const after = await this.resources.mutate(ctx, name, (evaluator) => {
      if (evaluator.state !== 'BUILDING' || evaluatorBuildKey(evaluator) !== buildKey) return evaluator;
      applied = true;
      if (result.ok) {
        evaluator.state = 'ACTIVE';
        evaluator.status = { code: 'OK', message: '' };
      } else {
        evaluator.state = 'BUILD_FAILED';
        evaluator.status = { code: result.code, message: result.message };
      }
      return evaluator;
    });
    return applied ? after : undefined;
  }

  /** Whether a build enqueued with `buildKey` still has work to do. */
  async needsBuild(ctx: RequestContext, name: string, buildKey: string): Promise<Evaluator | undefined> {
    const stored = await this.resources.env.storage.resources.get(ctx, name);
    const evaluator = stored?.data as Evaluator | undefined;
    return evaluator?.state === 'BUILDING' && evaluatorBuildKey(evaluator) === buildKey ? evaluator : undefined;
  }
}
