import { startRun, runRecordName, chunkPrefix } from './batch-inference-job-runs.js';
import type { Principal, RequestContext } from '../../kernel/request-context.js';
import { deleteBlobsUnder } from '../../blobs/delete-under.js';
import { parseResourceName } from '../../names/resource-name.js';
import { assertTransition } from '../common/state-machine.js';
import { isSpecifiedPrecision } from '../common/schema-parts.js';
import { isPlainObject } from '../../validation/paths.js';
import { crudService } from '../common/crud-service.js';
import type { PreconditionOptions } from '../common/resource-service.js';
import { batchInferenceJobDefinition } from './batch-inference-job-definition.js';
import type { BatchInferenceJob } from './batch-inference-job-schema.js';
import { batchInferenceJobStateMachine, batchInferenceJobTerminalStates } from './batch-inference-job-state-machine.js';

/**
 * Batch inference jobs: run a model over an input dataset into an output dataset. Create, get, list
 * and delete, as the definition makes them, plus `:cancel` (a Berth extension); a job is never edited.
 *
 * Create makes a job in JOB_STATE_CREATING (rules: `applyBatchInferenceJobCreateRules`) and, in the same
 * transaction, its run record and its work on the durable queue (run by `BatchInferenceRunner`); throws
 * PERMISSION_DENIED, INVALID_ARGUMENT (schema, missing or dangling references, another account),
 * FAILED_PRECONDITION (continuing a running job), ALREADY_EXISTS. Delete of a job still working
 * cancels it first (no further row is sent), then removes the record.
 */
export class BatchInferenceJobService extends crudService(batchInferenceJobDefinition, ['get', 'list']) {
  async create(ctx: RequestContext, accountId: string, body: unknown, id?: string): Promise<BatchInferenceJob> {
    return this.resources.env.storage.transaction(ctx, async (tx, txCtx) => {
      const job = await this.resources.create(txCtx, accountId, body, id === undefined ? {} : { id });
      // Named by the creator, or inherited from a continued job whose creator named it.
      const continued = job.continuedFromJobName ?? '';
      const precisionRequested = (isPlainObject(body) && isSpecifiedPrecision(body.precision))
        || (continued !== '' && (await tx.resources.get(txCtx, runRecordName(continued)))?.data.precisionRequested === true);
      await startRun(txCtx, tx, job.name ?? '', creatorOf(ctx, accountId), precisionRequested);
      return job;
    });
  }

  /**
   * `:cancel` — a job not yet finished ends in JOB_STATE_CANCELLED; the rows already committed are kept
   * (written to the output dataset by the worker). Answers `{}`. FAILED_PRECONDITION once the job is
   * writing its results or has stopped; NOT_FOUND when absent.
   */
  async cancel(ctx: RequestContext, name: string): Promise<Record<string, never>> {
    this.resources.authorizeName(ctx, name, 'action');
    await this.resources.mutate(ctx, name, (job) => {
      assertTransition(batchInferenceJobStateMachine, job.state ?? 'JOB_STATE_UNSPECIFIED', 'JOB_STATE_CANCELLED');
      job.state = 'JOB_STATE_CANCELLED';
      job.status = { code: 'CANCELLED', message: 'the job was cancelled' };
      return job;
    });
    return {};
  }

  /**
   * Deletes the job. One still working is cancelled first, in the same transaction (its worker sends no
   * further row and removes its run record and chunk files when it notices); a stopped job's run record
   * goes at once.
   */
  async delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    this.resources.authorizeName(ctx, name, 'delete');
    parseResourceName(name, 'batchInferenceJobs');
    const env = this.resources.env;
    const stopped = await env.storage.transaction(ctx, async (tx, txCtx) => {
      const stored = await this.resources.getStored(txCtx, name);
      const state = stored.data.state ?? 'JOB_STATE_UNSPECIFIED';
      await this.resources.remove(txCtx, name, options);
      const isStopped = batchInferenceJobTerminalStates.includes(state);
      if (isStopped) await tx.resources.delete(txCtx, runRecordName(name)).catch(() => undefined);
      return isStopped;
    });
    if (stopped) await deleteBlobsUnder(ctx, env.storage.blobs, chunkPrefix(name));
  }
}

/** Who the job's rows run as: the caller (rows use the creator's rights when they reach the model). */
function creatorOf(ctx: RequestContext, accountId: string): Principal {
  return ctx.principal ?? { userName: `accounts/${accountId}/users/system`, accountId, role: 'admin' };
}
