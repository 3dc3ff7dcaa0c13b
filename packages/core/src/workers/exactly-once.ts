import { Code } from '../errors/code.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { JsonValue } from '../ports/json.js';
import type { Storage, StorageTransaction } from '../ports/storage.js';

/** The fencing identity of a claim. */
export interface JobAttempt {
  readonly id: string;
  readonly attempt: number;
}

export interface CommitJobEffectsOptions<T> {
  /**
   * Renew the lease by this much as the transaction's first statement. That checks the fence before
   * any effect runs and, on PostgreSQL, locks the job row, so no other worker can claim the job until
   * this transaction ends. Omit to fence only at completion.
   */
  readonly leaseMs?: number;
  /** The job's stored result, computed from the effect's value. */
  readonly result?: (value: T) => JsonValue | undefined;
}

/**
 * Exactly-once effects for a queued job: runs `effect` and the job's completion in one
 * `storage.transaction`, where completion is fenced by `job.attempt`. If another worker has claimed
 * the job since (this worker's lease expired), the completion is rejected and `effect`'s writes
 * through `tx` roll back with it, so only one attempt's effect ever commits. Effects must go through
 * `tx` (resources, queue, outbox); anything else (HTTP calls, root-store writes) is not covered.
 *
 * @throws ABORTED (reason STALE_ATTEMPT) when the attempt is no longer current; NOT_FOUND when the
 *   job is gone; whatever `effect` throws (after rolling back).
 */
export async function commitJobEffects<T>(
  storage: Storage,
  ctx: RequestContext,
  job: JobAttempt,
  effect: (tx: StorageTransaction) => Promise<T>,
  options: CommitJobEffectsOptions<T> = {},
): Promise<T> {
  return storage.transaction(ctx, async (tx) => {
    if (options.leaseMs !== undefined) await tx.queue.renew(ctx, job.id, job.attempt, options.leaseMs);
    const value = await effect(tx);
    await tx.queue.complete(ctx, job.id, job.attempt, options.result?.(value));
    return value;
  });
}

/** True when a queue call was rejected because the caller's attempt is no longer the job's current one. */
export function isStaleAttempt(error: unknown): boolean {
  return isGatewayError(error) && (error.code === Code.ABORTED ? error.reason === 'STALE_ATTEMPT' : error.code === Code.NOT_FOUND);
}
