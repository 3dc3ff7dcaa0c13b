/**
 * Reads and compare-and-set moves of job records (batch inference and fine-tuning jobs) and their run
 * records, shared by the jobs' workers.
 */
import type { JsonObject } from '../../contracts/json.js';
import type { RequestContext } from '../../contracts/request-context.js';
import type { ResourceStore, Storage, StorageTransaction } from '../../ports/storage.js';

/** The record `name` as `T` (a copy the caller may change), or undefined when absent. */
export async function readRecord<T>(ctx: RequestContext, store: ResourceStore, name: string): Promise<T | undefined> {
  const found = await store.get(ctx, name);
  return found ? (structuredClone(found.data) as unknown as T) : undefined;
}

/** Sets (and removes) fields of a record in its own transaction; false when the record is gone. */
export async function patchRecord(
  ctx: RequestContext, storage: Pick<Storage, 'transaction'>, name: string, fields: JsonObject, remove: readonly string[] = [],
): Promise<boolean> {
  return storage.transaction(ctx, async (tx) => {
    const stored = await tx.resources.getForUpdate(ctx, name);
    if (!stored) return false;
    const next: JsonObject = { ...stored.data, ...fields };
    for (const key of remove) delete next[key];
    await tx.resources.update(ctx, name, next, stored.etag);
    return true;
  });
}

/** A compare-and-set move of a job: from one of `from` to `to`, applying `change` too. */
export interface RecordMove<S extends string, J> {
  readonly from: readonly S[];
  readonly to: S;
  readonly change?: (job: J) => void;
}

/**
 * Applies `move` inside an open transaction. Answers the job as stored after the call: unchanged when its
 * state was not in `move.from`; undefined when the job is gone.
 */
export async function moveRecordIn<S extends string, J extends { state?: S; updateTime?: string }>(
  ctx: RequestContext, tx: StorageTransaction, name: string, move: RecordMove<S, J>,
): Promise<J | undefined> {
  const current = await tx.resources.getForUpdate(ctx, name);
  if (!current) return undefined;
  const job = structuredClone(current.data) as unknown as J;
  if (job.state === undefined || !move.from.includes(job.state)) return job;
  job.state = move.to;
  move.change?.(job);
  job.updateTime = new Date().toISOString();
  await tx.resources.update(ctx, name, job as unknown as JsonObject, current.etag);
  return job;
}
