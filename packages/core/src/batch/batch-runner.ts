/**
 * Batch inference jobs run on the durable queue: creating a job stores it with a run record and one
 * queue job in a transaction; whichever gateway instance's workers claim the queue job move it through
 * VALIDATING → PENDING → RUNNING → WRITING_RESULTS → COMPLETED. Rows run in chunks; a chunk's files are
 * written first, then its progress and its place in the run record commit together (compare-and-set on
 * the number of committed chunks), so a worker that dies or loses its lease leaves at most an
 * uncommitted chunk, which the next attempt runs again.
 */
import { setMaxListeners } from 'node:events';
import { AttachedClientJobRunner, sleepUnlessAborted } from '../workers/job-stops.js';
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError, isGatewayError } from '../errors/index.js';
import { servingDirectoryToken } from '../kernel/tokens.js';
import type { ModelTarget, ServingDirectory } from '../ports/serving-directory.js';
import type { ClaimedJob } from '../ports/storage.js';
import { noTelemetry, type Telemetry } from '../ports/telemetry.js';
import type { BatchInferenceJob, BatchInferenceJobState } from '../resources/batch-inference-jobs/batch-inference-job-schema.js';
import type { Dataset } from '../resources/datasets/dataset-schema.js';
import type { ChatCompletionOutcome, ChatModelClient } from '../responses/model-client.js';
import type { BackoffOptions } from '../workers/backoff.js';
import type { QueueJobContext } from '../workers/queue-handler.js';
import { defaultOutputPartBytes, prepareOutputDataset, removeChunkFiles, writeOutput } from './batch-output.js';
import { RowStoppedError, runPipeline } from './batch-pipeline.js';
import { jobDefaults, parseBatchRow, type BatchInferenceParameters } from './batch-rows.js';
import { doneRows, inputLines, selectedRows } from './batch-input.js';
import type { BatchCapacity, JobCapacity } from './batch-capacity.js';
import { DuplicateCustomIds } from './batch-duplicates.js';
import {
  addCounts, batchInferenceQueue, chunkBlobKey, committedChunks, emptyCounts, withChunk, readJob, readRun, runRecordName, transitionJob, updateJobIn, updateRun,
  type BatchRunRecord, type ChunkCounts,
} from '../resources/batch-inference-jobs/batch-inference-job-runs.js';

export interface BatchInferenceOptions {
  /** Rows sent to the model at once. Default: 4 per replica the deployment may run (its max, else current, replica count), at most 64. */
  readonly concurrency?: number;
  /** Rows after which a chunk is committed. Default: 4 × the concurrency, at least 16. */
  readonly chunkSize?: number;
  /** Longest wait between chunk commits while rows are answered (progress moves at least this often). Default 500 ms. */
  readonly commitIntervalMs?: number;
  /** Retries of a row after a transient upstream error (429, 5xx, no replica, timeout). Default 3. */
  readonly rowRetries?: number;
  /** First retry delay of a row, doubled per retry. Default 250 ms. */
  readonly rowRetryBaseMs?: number;
  /** How often a running job re-reads its record to notice a cancel or delete. Default 500 ms. */
  readonly cancelPollMs?: number;
  /** How often a job in PENDING checks whether its deployment has a ready replica. Default 500 ms. */
  readonly capacityPollMs?: number;
  /** How often a running job checks that its deployment was not scaled to zero under it. Default 5 s. */
  readonly capacityKeepMs?: number;
  /** Largest output file in bytes before results are split. Default 8 MiB. */
  readonly outputPartBytes?: number;
  /** Lease of the queue job (renewed while it runs). Default 30 s. */
  readonly leaseMs?: number;
  readonly backoff?: BackoffOptions;
}

/** States from which the worker still has work on a job (with the ones it resumes from after a crash). */
const workingStates: readonly BatchInferenceJobState[] = [
  'JOB_STATE_CREATING', 'JOB_STATE_VALIDATING', 'JOB_STATE_PENDING', 'JOB_STATE_RUNNING', 'JOB_STATE_RE_QUEUEING', 'JOB_STATE_WRITING_RESULTS',
];

/** Upstream statuses retried with backoff. */
const transientStatuses: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
const transientCodes: ReadonlySet<Code> = new Set([Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED, Code.RESOURCE_EXHAUSTED]);

class StoppedError extends Error {}

const handOverReason = 'batch-hand-over';

/** The outcome of one row: a line for the results or the error file, and its token counts. */
interface RowOutcome {
  readonly ok: boolean;
  readonly line: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
}

/**
 * Runs batch inference jobs. Core contributes its queue handler; the component that reaches models (the
 * HTTP transport's inference proxy) attaches itself as the client, as for background responses: core
 * owns no HTTP client to replicas. A job claimed while no client is attached fails its attempt (retried
 * with backoff, when an instance serving inference may take it); once the attached client detached (the
 * server closes), this instance's workers claim no more batch jobs.
 */
export class BatchInferenceRunner extends AttachedClientJobRunner<ChatModelClient> {
  /**
   * @param capacity gives jobs capacity (scale from zero, temporary deployments). Without it a job uses
   *   the model's deployment as it stands and fails in VALIDATING when the model has none.
   */
  constructor(
    private readonly options: BatchInferenceOptions = {},
    private readonly capacity?: BatchCapacity,
    private readonly telemetry: Telemetry = noTelemetry,
  ) {
    super(batchInferenceQueue, options, handOverReason);
  }

  protected async handleJob(ctx: QueueJobContext, queued: ClaimedJob, name: string): Promise<void> {
    try {
      await this.advance(ctx, queued, name);
    } catch (error) {
      if (error instanceof StoppedError) return;
      if (queued.attempt >= queued.maxAttempts && !ctx.signal.aborted) {
        await this.fail(ctx, name, Code.INTERNAL, `the job could not be run: ${error instanceof Error ? error.message : String(error)}`).catch(() => undefined);
      }
      throw error;
    }
  }

  private now(): string {
    return new Date().toISOString();
  }

  private async fail(ctx: QueueJobContext, name: string, code: Code, message: string): Promise<void> {
    await this.capacity?.release(ctx, name);
    await transitionJob(ctx, ctx.storage, name, {
      from: workingStates, to: 'JOB_STATE_FAILED', change: (job) => {
        job.status = { code, message };
      },
    });
  }

  /** Moves the job on from wherever it stands (a retried attempt resumes from the stored state). */
  private async advance(ctx: QueueJobContext, queued: ClaimedJob, name: string): Promise<void> {
    const storage = ctx.storage;
    let job = await readJob(ctx, storage.resources, name);
    if (!job) return this.forget(ctx, name);
    if (job.state === 'JOB_STATE_CREATING') job = await transitionJob(ctx, storage, name, { from: ['JOB_STATE_CREATING'], to: 'JOB_STATE_VALIDATING' });
    if (job?.state === 'JOB_STATE_VALIDATING') job = await this.validate(ctx, job);
    if (job?.state === 'JOB_STATE_PENDING' || job?.state === 'JOB_STATE_RE_QUEUEING') {
      if (this.clients.current === undefined) throw new GatewayError(Code.UNAVAILABLE, 'this gateway instance serves no inference to run batch jobs', { reason: 'NO_RUNNER' });
      job = await this.awaitCapacity(ctx, job);
      if (job?.state === 'JOB_STATE_PENDING' || job?.state === 'JOB_STATE_RE_QUEUEING') {
        job = await transitionJob(ctx, storage, name, { from: ['JOB_STATE_PENDING', 'JOB_STATE_RE_QUEUEING'], to: 'JOB_STATE_RUNNING' });
      }
    }
    if (job?.state === 'JOB_STATE_RUNNING') job = await this.run(ctx, queued, job);
    if (!job) return this.forget(ctx, name);
    if (job.state === 'JOB_STATE_WRITING_RESULTS' || job.state === 'JOB_STATE_CANCELLED') {
      await this.finish(ctx, job);
    }
  }

  /** The job is gone (deleted): its run record and chunk files go too, and its hold on a temporary deployment. */
  private async forget(ctx: QueueJobContext, name: string): Promise<void> {
    await this.capacity?.release(ctx, name);
    await ctx.storage.resources.delete(ctx, runRecordName(name)).catch(() => undefined);
    await removeChunkFiles(ctx, ctx.storage, name);
  }

  /** VALIDATING: the input dataset is READY, the model can serve, the output dataset is usable; counts the input rows. */
  private async validate(ctx: QueueJobContext, job: BatchInferenceJob): Promise<BatchInferenceJob | undefined> {
    const name = job.name ?? '';
    const failWith = async (code: Code, message: string) => {
      await this.fail(ctx, name, code, message);
      return readJob(ctx, ctx.storage.resources, name);
    };
    const input = job.inputDatasetId ?? '';
    const dataset = (await ctx.storage.resources.get(ctx, input))?.data as Dataset | undefined;
    if (!dataset) return failWith(Code.NOT_FOUND, `input dataset ${input} does not exist`);
    if (dataset.state !== 'READY') return failWith(Code.FAILED_PRECONDITION, `input dataset ${input} is ${dataset.state ?? 'STATE_UNSPECIFIED'}; it must be READY`);
    try {
      jobDefaults(job.inferenceParameters as BatchInferenceParameters | undefined);
    } catch (error) {
      return failWith(Code.INVALID_ARGUMENT, (error as Error).message);
    }
    const run = await readRun(ctx, ctx.storage.resources, name);
    if (!run) return failWith(Code.INTERNAL, 'the job has no run record');
    try {
      await this.directory(ctx).resolve(this.rowContext(ctx, run), job.model ?? '');
    } catch (error) {
      // Without a deployment the PENDING step provisions one (or says why it cannot).
      const notDeployed = isGatewayError(error) && error.reason === 'NOT_DEPLOYED' && this.capacity !== undefined;
      if (isGatewayError(error) && !transientCodes.has(error.code) && !notDeployed) return failWith(error.code, `model ${job.model ?? ''} cannot serve: ${error.message}`);
      if (!notDeployed) throw error;
    }
    const { accountId, id } = parseJobName(name);
    const output = job.outputDatasetId !== undefined && job.outputDatasetId !== '' ? job.outputDatasetId : `accounts/${accountId}/datasets/${id}-output`;
    const refused = await prepareOutputDataset(ctx, ctx.storage, output, name, this.now());
    if (refused !== undefined) return failWith(Code.FAILED_PRECONDITION, refused);
    let total = 0;
    const done = await doneRows(ctx, ctx.storage, job);
    const duplicates = new DuplicateCustomIds();
    let number = 0;
    for await (const line of inputLines(ctx, ctx.storage, input)) {
      number += 1;
      duplicates.see(line, number);
      if (!done.has(number)) total += 1;
    }
    await duplicates.save(ctx, ctx.storage, name);
    return transitionJob(ctx, ctx.storage, name, {
      from: ['JOB_STATE_VALIDATING'], to: 'JOB_STATE_PENDING', change: (next) => {
        next.outputDatasetId = output;
        next.jobProgress = addCounts({ ...next.jobProgress, totalInputRequests: total }, emptyCounts());
      },
    });
  }

  /**
   * PENDING: chooses the deployment (scaled from zero, or a temporary one) and waits until it has a ready
   * replica, noticing a cancel or delete. Answers the job as it then stands (still PENDING when capacity is
   * there; failed with a status when it cannot be had).
   */
  private async awaitCapacity(ctx: QueueJobContext, job: BatchInferenceJob): Promise<BatchInferenceJob | undefined> {
    const capacity = this.capacity;
    if (!capacity) return job;
    const name = job.name ?? '';
    const run = await readRun(ctx, ctx.storage.resources, name);
    if (!run) throw new Error(`${name} has no run record`);
    const { stop, end } = this.stops.open(ctx);
    try {
      let chosen: JobCapacity;
      try {
        const asCreator = this.rowContext(ctx, run);
        chosen = await capacity.provide(ctx, (model) => this.directory(ctx).resolve(asCreator, model), job, run.precisionRequested === true);
      } catch (error) {
        if (!isGatewayError(error) || transientCodes.has(error.code)) throw error;
        await this.fail(ctx, name, error.code, `model ${job.model ?? ''} cannot get capacity: ${error.message}`);
        return readJob(ctx, ctx.storage.resources, name);
      }
      if (!(await updateRun(ctx, ctx.storage, name, { deployment: chosen.deployment, ...(chosen.temporary ? { temporaryDeployment: chosen.deployment } : {}) }))) {
        return readJob(ctx, ctx.storage.resources, name);
      }
      for (;;) {
        const current = await readJob(ctx, ctx.storage.resources, name);
        if (current?.state !== 'JOB_STATE_PENDING' && current?.state !== 'JOB_STATE_RE_QUEUEING') return current;
        if (stop.signal.aborted) return this.stopped(ctx, name, stop.signal);
        try {
          if (await capacity.ready(ctx, chosen.deployment)) return current;
        } catch (error) {
          if (!isGatewayError(error) || transientCodes.has(error.code)) throw error;
          await this.fail(ctx, name, error.code, `no capacity for model ${job.model ?? ''}: ${error.message}`);
          return readJob(ctx, ctx.storage.resources, name);
        }
        await sleepUnlessAborted(this.options.capacityPollMs ?? 500, stop.signal);
      }
    } finally {
      end();
    }
  }

  private directory(ctx: QueueJobContext): ServingDirectory {
    return ctx.resolver.resolve(servingDirectoryToken);
  }

  private rowContext(ctx: QueueJobContext, run: BatchRunRecord, signal?: AbortSignal): RequestContext {
    return { requestId: ctx.requestId, principal: run.principal, ...(signal ? { signal } : {}) };
  }

  /** RUNNING: chunks from the first uncommitted one, until the input ends or the job stops. */
  private async run(ctx: QueueJobContext, queued: ClaimedJob, job: BatchInferenceJob): Promise<BatchInferenceJob | undefined> {
    const name = job.name ?? '';
    const client = this.clients.current;
    if (!client) throw new GatewayError(Code.UNAVAILABLE, 'this gateway instance serves no inference to run batch jobs', { reason: 'NO_RUNNER' });
    const run = await readRun(ctx, ctx.storage.resources, name);
    if (!run) throw new Error(`${name} has no run record`);
    const { stop, end } = this.stops.open(ctx);
    const poll = setInterval(() => {
      void readJob(ctx, ctx.storage.resources, name).then((current) => {
        if (current?.state !== 'JOB_STATE_RUNNING') stop.abort();
      }, () => undefined);
    }, this.options.cancelPollMs ?? 500);
    // The autoscaler of another instance sees none of this one's traffic: a deployment scaled to zero under the job is scaled up again.
    const keeper = run.deployment !== undefined && this.capacity !== undefined
      ? setInterval(() => void this.capacity?.keep(ctx, run.deployment ?? '').catch(() => undefined), this.options.capacityKeepMs ?? 5000)
      : undefined;
    try {
      const rowCtx = this.rowContext(ctx, run, stop.signal);
      let target: ModelTarget;
      try {
        target = await this.directory(ctx).resolve(rowCtx, run.deployment !== undefined ? `${job.model ?? ''}#${run.deployment}` : job.model ?? '');
      } catch (error) {
        if (isGatewayError(error) && !transientCodes.has(error.code)) {
          await this.fail(ctx, name, error.code, `model ${job.model ?? ''} cannot serve: ${error.message}`);
          return readJob(ctx, ctx.storage.resources, name);
        }
        throw error;
      }
      const concurrency = this.options.concurrency ?? (await this.defaultConcurrency(ctx, target));
      // Every row in flight listens on the stop signal (its request, its retry wait): not a leak.
      setMaxListeners(2 * concurrency + 10, stop.signal);
      const defaults = jobDefaults(job.inferenceParameters as BatchInferenceParameters | undefined);
      const rows = selectedRows(ctx, ctx.storage, job.inputDatasetId ?? '', await doneRows(ctx, ctx.storage, job));
      const duplicates = await DuplicateCustomIds.load(ctx, ctx.storage, name);
      // Skip the committed rows without parsing them.
      for (let skipped = 0; skipped < run.rows; skipped += 1) if ((await rows.next()).done) break;
      // Each row re-reads the job's state before it is sent: none starts once a cancel or delete is stored.
      // Rows ready while a read is in flight share it (one read per round trip, not per row): the window in
      // which a row can pass a cancel being stored stays one read long, as with a read of its own.
      let reading: Promise<boolean> | undefined;
      const stillRunning = (): Promise<boolean> => {
        if (stop.signal.aborted) return Promise.resolve(false);
        reading ??= readJob(ctx, ctx.storage.resources, name).then(
          (current) => {
            reading = undefined;
            if (current?.state !== 'JOB_STATE_RUNNING') stop.abort();
            return !stop.signal.aborted;
          },
          (error: unknown) => {
            reading = undefined;
            throw error;
          },
        );
        return reading;
      };
      let state: BatchInferenceJobState | undefined = 'JOB_STATE_RUNNING';
      const pipeline = runPipeline<RowOutcome>({
        rows, concurrency, stop: stop.signal,
        chunkSize: this.options.chunkSize ?? Math.max(16, concurrency * 4),
        commitIntervalMs: this.options.commitIntervalMs ?? 500,
        // A cancel keeps the rows answered before it; a lost lease or a hand-over commits nothing more.
        commitAfterStop: () => !ctx.signal.aborted && !this.stops.handedOver(stop.signal),
        runRow: (row) => this.runRow(rowCtx, client, target, defaults, name, row.number, row.line, stillRunning, duplicates),
        commit: async (outcomes) => {
          state = await this.commitChunk(ctx, queued, name, run, outcomes);
          return state === 'JOB_STATE_RUNNING';
        },
      });
      try {
        await pipeline;
      } catch (error) {
        // The job or its run record was deleted under the commit: the job is gone, not failed.
        if (error instanceof StoppedError) return this.stopped(ctx, name, stop.signal);
        throw error;
      }
      if (stop.signal.aborted || state !== 'JOB_STATE_RUNNING') return this.stopped(ctx, name, stop.signal);
      return transitionJob(ctx, ctx.storage, name, { from: ['JOB_STATE_RUNNING'], to: 'JOB_STATE_WRITING_RESULTS' });
    } finally {
      end();
      clearInterval(poll);
      if (keeper) clearInterval(keeper);
    }
  }

  /** The job stopped running under this worker: cancelled or deleted (go on finishing), or the lease lost (stop). */
  private async stopped(ctx: QueueJobContext, name: string, stop: AbortSignal): Promise<BatchInferenceJob | undefined> {
    if (ctx.signal.aborted) throw new GatewayError(Code.ABORTED, 'the worker lost the batch job', { reason: 'STALE_ATTEMPT' });
    this.stops.throwIfHandedOver(stop);
    return readJob(ctx, ctx.storage.resources, name);
  }

  private async defaultConcurrency(ctx: QueueJobContext, target: ModelTarget): Promise<number> {
    const deployment = (await ctx.storage.resources.get(ctx, target.deployment))?.data;
    const max = Number(deployment?.maxReplicaCount ?? 0);
    const current = Number(deployment?.replicaCount ?? 0);
    const replicas = Math.max(1, Number.isFinite(max) && max > 0 ? max : Number.isFinite(current) ? current : 1);
    return Math.min(64, replicas * 4);
  }

  /** One row: parsed, sent (transient errors retried with backoff), answered as a result or an error line. */
  private async runRow(
    ctx: RequestContext, client: ChatModelClient, target: ModelTarget, defaults: JsonObject, jobName: string, rowNumber: number, line: string,
    stillRunning: () => Promise<boolean>, duplicates: ReadonlyMap<number, number>,
  ): Promise<RowOutcome> {
    const row = parseBatchRow(line, rowNumber, defaults);
    const failed = (customId: string | undefined, code: string, message: string, status?: number): RowOutcome => ({
      ok: false,
      line: JSON.stringify({ custom_id: customId ?? null, row: rowNumber, ...(status !== undefined ? { status_code: status } : {}), error: { code, message } }),
      inputTokens: 0, outputTokens: 0, cachedInputTokens: 0,
    });
    if (!row.ok) return failed(row.customId, 'invalid_row', row.reason);
    const first = duplicates.get(rowNumber);
    if (first !== undefined) {
      return failed(row.customId, 'duplicate_custom_id', `custom_id ${JSON.stringify(row.customId)} was already used by row ${first}; custom_id must be unique in the input, and only the first row with it runs`);
    }
    const retries = this.options.rowRetries ?? 3;
    const base = this.options.rowRetryBaseMs ?? 250;
    for (let attempt = 0; ; attempt += 1) {
      // No row (or retry) is sent once the job stopped: a cancel stops new requests at once.
      if (!(await stillRunning())) throw new RowStoppedError('stopped');
      let outcome: ChatCompletionOutcome;
      try {
        outcome = await client.complete(ctx, { target, body: row.body });
      } catch (error) {
        const transient = isGatewayError(error) && transientCodes.has(error.code);
        if (ctx.signal?.aborted) throw new RowStoppedError('stopped');
        if (transient && attempt < retries) {
          await sleepUnlessAborted(base * 2 ** attempt, ctx.signal);
          continue;
        }
        const code = isGatewayError(error) ? error.code.toLowerCase() : 'internal';
        return failed(row.customId, code, error instanceof Error ? error.message : String(error));
      }
      if (!outcome.ok) {
        if (transientStatuses.has(outcome.status) && attempt < retries) {
          await sleepUnlessAborted(base * 2 ** attempt, ctx.signal);
          continue;
        }
        return failed(row.customId, outcome.error.code ?? outcome.error.type, outcome.error.message, outcome.status);
      }
      const usage = outcome.completion.usage as JsonObject | undefined;
      const details = usage?.prompt_tokens_details as JsonObject | undefined;
      return {
        ok: true,
        line: JSON.stringify({ id: `${jobName.split('/').pop() ?? ''}-${rowNumber}`, custom_id: row.customId, row: rowNumber, response: { status_code: 200, body: outcome.completion }, error: null }),
        inputTokens: numberOf(usage?.prompt_tokens),
        outputTokens: numberOf(usage?.completion_tokens),
        cachedInputTokens: numberOf(details?.cached_tokens),
      };
    }
  }

  /**
   * Writes a chunk's files (named by this attempt), then commits its counts and its place in the run
   * record together: only when the run record still has the chunks this worker read (another attempt
   * did not commit it meanwhile) and the job is RUNNING or was cancelled since (rows already answered
   * are kept). Answers the job's state after the commit.
   */
  private async commitChunk(ctx: QueueJobContext, queued: ClaimedJob, name: string, run: BatchRunRecord, outcomes: readonly RowOutcome[]): Promise<BatchInferenceJobState | undefined> {
    const chunk = committedChunks(run);
    const counts: ChunkCounts = emptyCounts();
    const results: string[] = [];
    const errors: string[] = [];
    for (const outcome of outcomes) {
      counts.processed += 1;
      if (outcome.ok) {
        counts.succeeded += 1;
        counts.outputRows += 1;
        results.push(outcome.line);
      } else {
        counts.failed += 1;
        errors.push(outcome.line);
      }
      counts.inputTokens += outcome.inputTokens;
      counts.outputTokens += outcome.outputTokens;
      counts.cachedInputTokens += outcome.cachedInputTokens;
    }
    const body = (lines: string[]) => Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
    await ctx.storage.blobs.put(ctx, chunkBlobKey(name, chunk, queued.attempt, 'results'), body(results), 'application/jsonl');
    await ctx.storage.blobs.put(ctx, chunkBlobKey(name, chunk, queued.attempt, 'errors'), body(errors), 'application/jsonl');
    const state = await ctx.storage.transaction(ctx, async (tx) => {
      const storedRun = await tx.resources.getForUpdate(ctx, run.name);
      if (!storedRun) throw new StoppedError('run record gone');
      const current = storedRun.data as unknown as BatchRunRecord;
      if (committedChunks(current) !== chunk) throw new GatewayError(Code.ABORTED, `chunk ${chunk} of ${name} was committed by another attempt`, { reason: 'STALE_ATTEMPT' });
      const stored = await tx.resources.getForUpdate(ctx, name);
      if (!stored) throw new StoppedError('job gone');
      const data = stored.data as BatchInferenceJob;
      const state = data.state;
      if (state !== 'JOB_STATE_RUNNING' && state !== 'JOB_STATE_CANCELLED') return state;
      await tx.resources.update(ctx, name, { ...data, jobProgress: addCounts(data.jobProgress, counts), updateTime: this.now() } as JsonObject, stored.etag);
      const next = withChunk(current, queued.attempt, outcomes.length);
      run.rows = next.rows;
      run.attempts = next.attempts;
      await tx.resources.update(ctx, run.name, { ...storedRun.data, rows: next.rows, attempts: next.attempts }, storedRun.etag);
      return state;
    });
    if (state === 'JOB_STATE_RUNNING' || state === 'JOB_STATE_CANCELLED') {
      if (counts.succeeded > 0) this.telemetry.batchRows({ outcome: 'succeeded', rows: counts.succeeded });
      if (counts.failed > 0) this.telemetry.batchRows({ outcome: 'failed', rows: counts.failed });
    }
    return state;
  }

  /** WRITING_RESULTS (→ COMPLETED) or CANCELLED: the committed chunks go to the output dataset, once. */
  private async finish(ctx: QueueJobContext, job: BatchInferenceJob): Promise<void> {
    const name = job.name ?? '';
    // Before the job is marked done: a crash after this leaves the work queued, and the release is idempotent.
    await this.capacity?.release(ctx, name);
    const run = await readRun(ctx, ctx.storage.resources, name);
    const output = job.outputDatasetId ?? '';
    if (run && output !== '' && (await ctx.storage.resources.get(ctx, output))) {
      await writeOutput(ctx, ctx.storage, name, run, output, this.now(), this.options.outputPartBytes ?? defaultOutputPartBytes);
    }
    // Before the commit that ends the queue work: a worker killed after it leaves no chunk file behind
    // (one killed before runs finish again, and writeOutput leaves the READY output as it is).
    await removeChunkFiles(ctx, ctx.storage, name);
    await ctx.commit(async (tx) => {
      const after = await updateJobIn(ctx, tx, name, {
        from: ['JOB_STATE_WRITING_RESULTS'], to: 'JOB_STATE_COMPLETED', change: (next) => {
          delete next.status;
        },
      });
      // Deleted meanwhile: its run record goes with the end of the queue work.
      if (!after) await tx.resources.delete(ctx, runRecordName(name)).catch(() => undefined);
    });
  }
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function parseJobName(name: string): { accountId: string; id: string } {
  const parts = name.split('/');
  return { accountId: parts[1] ?? '', id: parts[3] ?? '' };
}
