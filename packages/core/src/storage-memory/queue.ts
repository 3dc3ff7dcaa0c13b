import { randomUUID } from 'node:crypto';
import { aborted, notFound } from '../errors/index.js';
import type { RequestContext } from '../kernel/index.js';
import type { ClaimedJob, EnqueueRequest, JobQueue, JsonValue, QueuedJob } from '../ports/index.js';
import { clone, iso, type JobRecord } from './records.js';
import type { MemoryState } from './state.js';
import type { UndoLog, WriteScope } from './transactions.js';

const DEFAULT_MAX_ATTEMPTS = 5;

function toJob(record: JobRecord): QueuedJob {
  return {
    id: record.id,
    queue: record.queue,
    payload: clone(record.payload),
    state: record.state,
    attempt: record.attempt,
    maxAttempts: record.maxAttempts,
    runAt: iso(record.runAt),
    ...(record.leaseExpiresAt === undefined ? {} : { leaseExpiresAt: iso(record.leaseExpiresAt) }),
    ...(record.lastError === undefined ? {} : { lastError: record.lastError }),
    ...(record.result === undefined ? {} : { result: clone(record.result) }),
  };
}

/** The job queue in memory: leases fenced by attempt, dedupe keys, dead-lettering after the last attempt. */
export class MemoryJobQueue implements JobQueue {
  constructor(
    private readonly state: MemoryState,
    private readonly scope: WriteScope,
  ) {}

  private replace(undo: UndoLog | undefined, previous: JobRecord, next: JobRecord): void {
    this.state.jobs.set(next.id, next);
    undo?.push(() => this.state.jobs.set(previous.id, previous));
  }

  /** The job at `attempt` if it is still leased to that attempt; NOT_FOUND / ABORTED otherwise. */
  private fenced(jobId: string, attempt: number): JobRecord {
    const job = this.state.jobs.get(jobId);
    if (job === undefined) throw notFound(`job ${jobId}`);
    if (job.attempt !== attempt || job.state !== 'leased') {
      throw aborted(`job ${jobId} attempt ${attempt} is no longer current (attempt ${job.attempt}, ${job.state})`, { reason: 'STALE_ATTEMPT' });
    }
    return job;
  }

  enqueue(_ctx: RequestContext, request: EnqueueRequest): Promise<QueuedJob> {
    return this.scope.write((undo) => {
      const { jobs, dedupe } = this.state;
      const dedupeId = request.dedupeKey === undefined ? undefined : `${request.queue}\u0000${request.dedupeKey}`;
      if (dedupeId !== undefined) {
        const existing = jobs.get(dedupe.get(dedupeId) ?? '');
        if (existing !== undefined) return toJob(existing);
      }
      const record: JobRecord = {
        id: randomUUID(),
        queue: request.queue,
        payload: clone(request.payload),
        state: 'queued',
        attempt: 0,
        maxAttempts: request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        runAt: request.runAt?.getTime() ?? this.state.now(),
        order: ++this.state.jobOrder,
        ...(request.dedupeKey === undefined ? {} : { dedupeKey: request.dedupeKey }),
      };
      jobs.set(record.id, record);
      if (dedupeId !== undefined) dedupe.set(dedupeId, record.id);
      undo?.push(() => {
        jobs.delete(record.id);
        if (dedupeId !== undefined) dedupe.delete(dedupeId);
      });
      return toJob(record);
    });
  }

  claim(_ctx: RequestContext, queue: string, workerId: string, leaseMs: number): Promise<ClaimedJob | undefined> {
    return this.scope.write((undo) => {
      const now = this.state.now();
      let best: JobRecord | undefined;
      for (const job of this.state.jobs.values()) {
        if (job.queue !== queue) continue;
        const expired = job.state === 'leased' && (job.leaseExpiresAt ?? 0) <= now;
        if (expired && job.attempt >= job.maxAttempts) {
          // The final attempt's worker vanished: dead-letter instead of running it once too often.
          const { leaseExpiresAt: _lease, workerId: _worker, ...rest } = job;
          this.replace(undo, job, { ...rest, state: 'failed', lastError: job.lastError ?? 'lease expired on the final attempt' });
          continue;
        }
        const runnable = (job.state === 'queued' && job.runAt <= now) || expired;
        if (!runnable) continue;
        if (best === undefined || job.runAt < best.runAt || (job.runAt === best.runAt && job.order < best.order)) best = job;
      }
      if (best === undefined) return undefined;
      const claimed: JobRecord = { ...best, state: 'leased', attempt: best.attempt + 1, leaseExpiresAt: now + leaseMs, workerId };
      this.replace(undo, best, claimed);
      return { ...toJob(claimed), state: 'leased', leaseExpiresAt: iso(now + leaseMs), workerId };
    });
  }

  renew(_ctx: RequestContext, jobId: string, attempt: number, leaseMs: number): Promise<void> {
    return this.scope.write((undo) => {
      const job = this.fenced(jobId, attempt);
      this.replace(undo, job, { ...job, leaseExpiresAt: this.state.now() + leaseMs });
    });
  }

  complete(_ctx: RequestContext, jobId: string, attempt: number, result?: JsonValue): Promise<void> {
    return this.scope.write((undo) => {
      const job = this.fenced(jobId, attempt);
      const { leaseExpiresAt: _lease, workerId: _worker, ...rest } = job;
      this.replace(undo, job, { ...rest, state: 'completed', ...(result === undefined ? {} : { result: clone(result) }) });
    });
  }

  fail(_ctx: RequestContext, jobId: string, attempt: number, error: string, retryAt?: Date): Promise<void> {
    return this.scope.write((undo) => {
      const job = this.fenced(jobId, attempt);
      const { leaseExpiresAt: _lease, workerId: _worker, ...rest } = job;
      const next: JobRecord =
        job.attempt < job.maxAttempts
          ? { ...rest, state: 'queued', lastError: error, runAt: retryAt?.getTime() ?? this.state.now() }
          : { ...rest, state: 'failed', lastError: error };
      this.replace(undo, job, next);
    });
  }

  release(_ctx: RequestContext, jobId: string, attempt: number): Promise<void> {
    return this.scope.write((undo) => {
      const job = this.fenced(jobId, attempt);
      const { leaseExpiresAt: _lease, workerId: _worker, ...rest } = job;
      this.replace(undo, job, { ...rest, state: 'queued', attempt: job.attempt - 1 });
    });
  }

  async get(_ctx: RequestContext, jobId: string): Promise<QueuedJob | undefined> {
    const job = this.state.jobs.get(jobId);
    return job === undefined ? undefined : toJob(job);
  }
}
