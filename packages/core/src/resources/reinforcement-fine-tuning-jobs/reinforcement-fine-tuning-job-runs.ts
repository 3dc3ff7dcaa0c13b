import type { JsonObject } from '../../contracts/json.js';
import type { Principal, RequestContext } from '../../contracts/request-context.js';
import { parseResourceName } from '../../names/resource-name.js';
import type { TrainerCheckpoint } from '../../ports/trainer.js';
import type { EnqueueRequest, ResourceStore, Storage, StorageTransaction } from '../../ports/storage.js';
import { moveRecordIn, patchRecord, readRecord, type RecordMove } from '../common/job-records.js';
import type { JobState } from '../common/schema-parts.js';
import type { ReinforcementFineTuningJob } from './reinforcement-fine-tuning-job-schema.js';

/** The durable queue that runs reinforcement fine-tuning jobs. */
export const reinforcementFineTuningQueue = 'berth.reinforcement-fine-tuning';

/** Attempts of a job's queue work before the job is paused for a person to look at (each crash of a worker costs one). */
export const reinforcementFineTuningMaxAttempts = 20;

/** The mean rewards of one finished epoch. */
export interface RftEpochRewards {
  readonly epoch: number;
  /** Mean reward of the epoch's scored training rollouts; absent when none was scored. */
  readonly train?: number;
  /** Mean reward on the evaluation set after the epoch; absent without an evaluation set. */
  readonly evaluation?: number;
}

/**
 * A job's execution state, beside the job in its own record (`accounts/a/reinforcementFineTuningJobRuns/id`):
 * who created it (rollouts run with the creator's rights), where the loop stands (epoch, chunk, training
 * steps applied) and the checkpoint of the last step. The checkpoint, the position and the job's progress
 * commit together, so a crashed worker's successor continues after the last committed step.
 */
export interface RftRunRecord {
  readonly name: string;
  readonly principal: Principal;
  /** Training steps committed; the next step is `step + 1`. */
  step: number;
  /** 0-based epoch of the next chunk. */
  epoch: number;
  /** 0-based chunk of `epoch` the next step trains on. */
  chunk: number;
  /** The checkpoint of step `step` (absent before the first step). */
  checkpoint?: TrainerCheckpoint;
  /** Rewards of the current epoch's committed chunks: sum and count of scored training rollouts. */
  epochRewardSum: number;
  epochRewardCount: number;
  /** Finished epochs' mean rewards, in order. */
  epochs: RftEpochRewards[];
  /** The trainer's last metrics (`loss`, …), shown in `outputMetrics`. */
  lastStepMetrics?: Record<string, number>;
  /** Accelerator seconds used so far, per accelerator type (summed over steps). */
  acceleratorSeconds: Record<string, number>;
  /** How often the job was resumed (each resume enqueues work under a new dedupe key). */
  resumes: number;
  /** The deployment rollouts go to, chosen when the job left PENDING. */
  deployment?: string;
  /** The temporary deployment the job holds, if any. */
  temporaryDeployment?: string;
  /** The add-on model serving `checkpoint` to the rollouts (deployed on `deployment`), and the step it holds. */
  policyModel?: string;
  policyStep?: number;
  /** MCP tool calls of the committed steps' rollouts and how many failed (jobs with `mcpServer`). */
  toolCalls?: number;
  failedToolCalls?: number;
  /** Set when the early stopping rule ended the training: the job ends EARLY_STOPPED rather than COMPLETED. */
  earlyStopped?: boolean;
}

export function rftRunRecordName(jobName: string): string {
  const { accountId, id } = parseResourceName(jobName, 'reinforcementFineTuningJobs');
  return `accounts/${accountId}/reinforcementFineTuningJobRuns/${id}`;
}

/** The queue work of a job; `generation` distinguishes the work of a resume (and of a deletion's clean-up) from the first. */
export function rftWork(name: string, generation: string | number = 0): EnqueueRequest {
  const dedupeKey = generation === 0 ? name : `${name}#${generation}`;
  return { queue: reinforcementFineTuningQueue, payload: { name }, dedupeKey, maxAttempts: reinforcementFineTuningMaxAttempts };
}

export function newRunRecord(jobName: string, principal: Principal): RftRunRecord {
  return {
    name: rftRunRecordName(jobName), principal, step: 0, epoch: 0, chunk: 0, epochRewardSum: 0, epochRewardCount: 0, epochs: [],
    acceleratorSeconds: {}, resumes: 0,
  };
}

/** Stores a new job's run record and queue work in the caller's transaction. */
export async function startRftRun(ctx: RequestContext, tx: StorageTransaction, jobName: string, principal: Principal): Promise<void> {
  const run = newRunRecord(jobName, principal);
  await tx.resources.create(ctx, run.name, run as unknown as JsonObject);
  await tx.queue.enqueue(ctx, rftWork(jobName));
}

/** Queues the job's work again after `:resume` (in the caller's transaction); creates a missing run record. */
export async function resumeRftRun(ctx: RequestContext, tx: StorageTransaction, jobName: string, principal: Principal): Promise<void> {
  const recordName = rftRunRecordName(jobName);
  const stored = await tx.resources.getForUpdate(ctx, recordName);
  const run = stored ? (stored.data as unknown as RftRunRecord) : newRunRecord(jobName, principal);
  const resumes = (run.resumes ?? 0) + 1;
  if (stored) await tx.resources.update(ctx, recordName, { ...stored.data, resumes }, stored.etag);
  else await tx.resources.create(ctx, recordName, { ...run, resumes } as unknown as JsonObject);
  await tx.queue.enqueue(ctx, rftWork(jobName, resumes));
}

export async function readRftJob(ctx: RequestContext, store: ResourceStore, name: string): Promise<ReinforcementFineTuningJob | undefined> {
  return readRecord<ReinforcementFineTuningJob>(ctx, store, name);
}

export async function readRftRun(ctx: RequestContext, store: ResourceStore, jobName: string): Promise<RftRunRecord | undefined> {
  return readRecord<RftRunRecord>(ctx, store, rftRunRecordName(jobName));
}

/** Sets (and removes) fields of a job's run record (in its own transaction); false when the record is gone. */
export async function updateRftRun(
  ctx: RequestContext, storage: Pick<Storage, 'transaction'>, jobName: string, fields: Partial<RftRunRecord>, remove: readonly (keyof RftRunRecord)[] = [],
): Promise<boolean> {
  return patchRecord(ctx, storage, rftRunRecordName(jobName), fields as unknown as JsonObject, remove);
}

/** A compare-and-set move of a job: from one of `from` to `to`, applying `change` too. */
export type RftJobMove = RecordMove<JobState, ReinforcementFineTuningJob>;

/** {@link transitionRftJob} inside an open transaction. */
export async function moveRftJobIn(ctx: RequestContext, tx: StorageTransaction, name: string, move: RftJobMove): Promise<ReinforcementFineTuningJob | undefined> {
  return moveRecordIn(ctx, tx, name, move);
}

/** Applies `move` in a transaction: answers the job as stored after it (unchanged when not in `from`; undefined when gone). */
export async function transitionRftJob(ctx: RequestContext, storage: Pick<Storage, 'transaction'>, name: string, move: RftJobMove): Promise<ReinforcementFineTuningJob | undefined> {
  return storage.transaction(ctx, async (tx) => moveRftJobIn(ctx, tx, name, move));
}

/** `acceleratorSeconds` as the resource carries it (int64 strings, whole seconds rounded up). */
export function acceleratorSecondsField(seconds: Readonly<Record<string, number>>): Record<string, string> {
  return Object.fromEntries(Object.entries(seconds).map(([type, value]) => [type, String(Math.ceil(value))]));
}
