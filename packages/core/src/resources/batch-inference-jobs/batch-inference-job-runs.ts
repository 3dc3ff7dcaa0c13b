import type { JsonObject } from '../../contracts/json.js';
import type { Principal, RequestContext } from '../../contracts/request-context.js';
import type { EnqueueRequest, ResourceStore, Storage, StorageTransaction } from '../../ports/storage.js';
import { parseResourceName } from '../../names/resource-name.js';
import { moveRecordIn, patchRecord, readRecord, type RecordMove } from '../common/job-records.js';
import type { JobProgress } from '../common/schema-parts.js';
import type { BatchInferenceJob, BatchInferenceJobState } from './batch-inference-job-schema.js';

/** The durable queue that runs batch inference jobs. */
export const batchInferenceQueue = 'berth.batch-inference';

/** Attempts of a job's queue work before the job is failed for good (each crash of a worker costs one). */
export const batchInferenceMaxAttempts = 20;

/** The queue work of the batch inference job `name` (one per job: the name dedupes it). */
export function batchInferenceWork(name: string): EnqueueRequest {
  return { queue: batchInferenceQueue, payload: { name }, dedupeKey: name, maxAttempts: batchInferenceMaxAttempts };
}

/**
 * A job's execution state, kept beside the job in its own record (`accounts/a/batchInferenceJobRuns/id`)
 * so that the job resource shows only API fields: who created the job (rows run with the creator's
 * rights), how many input rows and chunks are committed, and which queue attempt wrote each chunk's files.
 */
export interface BatchRunRecord {
  readonly name: string;
  readonly principal: Principal;
  /** Input rows committed (in input order): a resumed run starts after them. */
  rows: number;
  /** Chunks committed, by the attempt that wrote them, run-length encoded: `[attempt, chunks]` in chunk order. */
  attempts: [number, number][];
  /** True when the creator named the job's precision (a deployment at another precision is not used then). */
  precisionRequested?: boolean;
  /** The deployment the rows go to, chosen when the job left PENDING (a resumed run keeps it). */
  deployment?: string;
  /** The temporary deployment the job holds (made for it or shared with other jobs of the model), if any. */
  temporaryDeployment?: string;
}

/** Chunks committed so far. */
export function committedChunks(run: BatchRunRecord): number {
  return run.attempts.reduce((sum, [, count]) => sum + count, 0);
}

/** The attempt that wrote each committed chunk, in chunk order. */
export function* chunkAttempts(run: BatchRunRecord): Generator<[chunk: number, attempt: number]> {
  let chunk = 0;
  for (const [attempt, count] of run.attempts) {
    for (let i = 0; i < count; i += 1) yield [chunk++, attempt];
  }
}

/** The run record with one more chunk, committed by `attempt` and holding `rows` input rows. */
export function withChunk(run: BatchRunRecord, attempt: number, rows: number): BatchRunRecord {
  const attempts = run.attempts.map(([a, c]): [number, number] => [a, c]);
  const last = attempts[attempts.length - 1];
  if (last && last[0] === attempt) last[1] += 1;
  else attempts.push([attempt, 1]);
  return { ...run, rows: run.rows + rows, attempts };
}

export function runRecordName(jobName: string): string {
  const { accountId, id } = parseResourceName(jobName, 'batchInferenceJobs');
  return `accounts/${accountId}/batchInferenceJobRuns/${id}`;
}

/** Where chunk files live while the job runs (outside the output dataset until results are written). */
export function chunkBlobKey(jobName: string, chunk: number, attempt: number, kind: 'results' | 'errors'): string {
  return `${chunkPrefix(jobName)}${String(chunk).padStart(8, '0')}-a${attempt}.${kind}.jsonl`;
}

export function chunkPrefix(jobName: string): string {
  const { accountId, id } = parseResourceName(jobName, 'batchInferenceJobs');
  return `batch-jobs/${accountId}/${id}/`;
}

/** Stores a new job's run record and queue work in the caller's transaction. */
export async function startRun(ctx: RequestContext, tx: StorageTransaction, jobName: string, principal: Principal, precisionRequested = false): Promise<void> {
  const run: BatchRunRecord = { name: runRecordName(jobName), principal, rows: 0, attempts: [], ...(precisionRequested ? { precisionRequested } : {}) };
  await tx.resources.create(ctx, run.name, run as unknown as JsonObject);
  await tx.queue.enqueue(ctx, batchInferenceWork(jobName));
}

export async function readJob(ctx: RequestContext, store: ResourceStore, name: string): Promise<BatchInferenceJob | undefined> {
  return readRecord<BatchInferenceJob>(ctx, store, name);
}

export async function readRun(ctx: RequestContext, store: ResourceStore, jobName: string): Promise<BatchRunRecord | undefined> {
  return readRecord<BatchRunRecord>(ctx, store, runRecordName(jobName));
}

/** Sets fields of a job's run record (in its own transaction); false when the record is gone. */
export async function updateRun(
  ctx: RequestContext, storage: Pick<Storage, 'transaction'>, jobName: string, fields: Pick<BatchRunRecord, 'deployment' | 'temporaryDeployment'>,
): Promise<boolean> {
  return patchRecord(ctx, storage, runRecordName(jobName), fields as JsonObject);
}

/** A compare-and-set move of a job: from one of `from` to `to`, applying `change` too. */
export type JobMove = RecordMove<BatchInferenceJobState, BatchInferenceJob>;

/**
 * Applies `move` in a transaction. Answers the job as stored after the call: unchanged when its state was
 * not in `move.from`; undefined when the job is gone.
 */
export async function transitionJob(ctx: RequestContext, storage: Pick<Storage, 'transaction'>, name: string, move: JobMove): Promise<BatchInferenceJob | undefined> {
  return storage.transaction(ctx, async (tx) => updateJobIn(ctx, tx, name, move));
}

/** {@link transitionJob} inside an open transaction. */
export async function updateJobIn(ctx: RequestContext, tx: StorageTransaction, name: string, move: JobMove): Promise<BatchInferenceJob | undefined> {
  return moveRecordIn(ctx, tx, name, move);
}

/** Counts of one chunk, added to the job's progress when the chunk commits. */
export interface ChunkCounts {
  processed: number;
  succeeded: number;
  failed: number;
  outputRows: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

export function emptyCounts(): ChunkCounts {
  return { processed: 0, succeeded: 0, failed: 0, outputRows: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
}

/** The job's progress with a committed chunk's counts added (percent of the input processed). */
export function addCounts(progress: JobProgress | undefined, counts: ChunkCounts): JobProgress {
  const p = progress ?? {};
  const total = p.totalInputRequests ?? 0;
  const processed = (p.totalProcessedRequests ?? 0) + counts.processed;
  return {
    ...p,
    totalInputRequests: total,
    totalProcessedRequests: processed,
    successfullyProcessedRequests: (p.successfullyProcessedRequests ?? 0) + counts.succeeded,
    failedRequests: (p.failedRequests ?? 0) + counts.failed,
    outputRows: (p.outputRows ?? 0) + counts.outputRows,
    inputTokens: (p.inputTokens ?? 0) + counts.inputTokens,
    outputTokens: (p.outputTokens ?? 0) + counts.outputTokens,
    cachedInputTokenCount: (p.cachedInputTokenCount ?? 0) + counts.cachedInputTokens,
    percent: total === 0 ? 100 : Math.min(100, Math.round((processed / total) * 10000) / 100),
  };
}
