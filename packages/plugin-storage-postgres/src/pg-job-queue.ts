import { randomUUID } from 'node:crypto';
import { aborted, notFound, type ClaimedJob, type EnqueueRequest, type JobQueue, type JsonValue, type QueuedJob, type QueuedJobState, type RequestContext } from '@berth/core';
import { iso, json, parseJson, run, text, type ExecutorSource, type Tables } from './pg-support.js';

const DEFAULT_MAX_ATTEMPTS = 5;

const JOB_COLUMNS = `id, queue, payload::text AS payload, state, attempt, max_attempts, run_at, lease_expires_at, worker_id, last_error, result::text AS result`;

function toJob(row: Record<string, unknown>): QueuedJob {
  return {
    id: text(row.id),
    queue: text(row.queue),
    payload: parseJson(row.payload),
    state: text(row.state) as QueuedJobState,
    attempt: Number(row.attempt),
    maxAttempts: Number(row.max_attempts),
    runAt: iso(row.run_at),
    ...(row.lease_expires_at === null || row.lease_expires_at === undefined ? {} : { leaseExpiresAt: iso(row.lease_expires_at) }),
    ...(row.last_error === null || row.last_error === undefined ? {} : { lastError: text(row.last_error) }),
    ...(row.result === null || row.result === undefined ? {} : { result: parseJson(row.result) }),
  };
}

export class PgJobQueue implements JobQueue {
  constructor(
    private readonly t: Tables,
    private readonly db: ExecutorSource,
  ) {}

  async enqueue(_ctx: RequestContext, request: EnqueueRequest): Promise<QueuedJob> {
    const db = this.db();
    const params = [
      randomUUID(),
      request.queue,
      json(request.payload),
      request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      request.runAt === undefined ? null : request.runAt.toISOString(),
      request.dedupeKey ?? null,
    ];
    const insert = `INSERT INTO ${this.t.jobs} (id, queue, payload, state, max_attempts, run_at, dedupe_key)
       VALUES ($1, $2, $3::jsonb, 'queued', $4::integer, COALESCE($5::timestamptz, clock_timestamp()), $6::text)`;
    if (request.dedupeKey === undefined) {
      const { rows } = await run(db, `${insert} RETURNING ${JOB_COLUMNS}`, params);
      return toJob(rows[0] as Record<string, unknown>);
    }
    // A concurrent enqueue with the same key makes this INSERT wait for it, then do nothing; the
    // SELECT (a new snapshot in READ COMMITTED) then sees the winner.
    const { rows } = await run(db, `${insert} ON CONFLICT (queue, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING RETURNING ${JOB_COLUMNS}`, params);
    if (rows[0] !== undefined) return toJob(rows[0]);
    const existing = await run(db, `SELECT ${JOB_COLUMNS} FROM ${this.t.jobs} WHERE queue = $1 AND dedupe_key = $2`, [request.queue, request.dedupeKey]);
    if (existing.rows[0] === undefined) throw aborted(`job with dedupe key ${request.dedupeKey} was removed concurrently; retry`);
    return toJob(existing.rows[0]);
  }

  async claim(_ctx: RequestContext, queue: string, workerId: string, leaseMs: number): Promise<ClaimedJob | undefined> {
    const db = this.db();
    // Dead-letter jobs whose final attempt's lease ran out: their worker is gone, and another attempt
    // would exceed maxAttempts.
    await run(
      db,
      `UPDATE ${this.t.jobs} SET state = 'failed', lease_expires_at = NULL, worker_id = NULL, update_time = clock_timestamp(),
         last_error = COALESCE(last_error, 'lease expired on the final attempt')
       WHERE id IN (SELECT id FROM ${this.t.jobs}
         WHERE queue = $1 AND state = 'leased' AND lease_expires_at <= clock_timestamp() AND attempt >= max_attempts
         FOR UPDATE SKIP LOCKED)`,
      [queue],
    );
    // One statement: pick the oldest runnable job, skipping rows another claimer holds, and lease it.
    const { rows } = await run(
      db,
      `UPDATE ${this.t.jobs} SET state = 'leased', attempt = attempt + 1, worker_id = $2,
         lease_expires_at = clock_timestamp() + $3::double precision * interval '1 millisecond', update_time = clock_timestamp()
       WHERE id = (SELECT id FROM ${this.t.jobs}
         WHERE queue = $1 AND (
           (state = 'queued' AND run_at <= clock_timestamp()) OR
           (state = 'leased' AND lease_expires_at <= clock_timestamp() AND attempt < max_attempts))
         ORDER BY run_at, seq LIMIT 1
         FOR UPDATE SKIP LOCKED)
       RETURNING ${JOB_COLUMNS}`,
      [queue, workerId, leaseMs],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const job = toJob(row);
    return { ...job, state: 'leased', leaseExpiresAt: job.leaseExpiresAt ?? iso(row.lease_expires_at), workerId: text(row.worker_id) };
  }

  /** Runs a fenced write (attempt and state in the WHERE); on no row: NOT_FOUND or ABORTED. */
  private async fenced(jobId: string, attempt: number, sql: string, extra: unknown[]): Promise<void> {
    const db = this.db();
    const { rows } = await run(db, sql, [jobId, attempt, ...extra]);
    if (rows.length > 0) return;
    const current = await run(db, `SELECT attempt, state FROM ${this.t.jobs} WHERE id = $1`, [jobId]);
    const row = current.rows[0];
    if (row === undefined) throw notFound(`job ${jobId}`);
    throw aborted(`job ${jobId} attempt ${attempt} is no longer current (attempt ${Number(row.attempt)}, ${text(row.state)})`, { reason: 'STALE_ATTEMPT' });
  }

  renew(_ctx: RequestContext, jobId: string, attempt: number, leaseMs: number): Promise<void> {
    return this.fenced(
      jobId,
      attempt,
      `UPDATE ${this.t.jobs} SET lease_expires_at = clock_timestamp() + $3::double precision * interval '1 millisecond', update_time = clock_timestamp()
       WHERE id = $1 AND attempt = $2::integer AND state = 'leased' RETURNING 1 AS one`,
      [leaseMs],
    );
  }

  complete(_ctx: RequestContext, jobId: string, attempt: number, result?: JsonValue): Promise<void> {
    return this.fenced(
      jobId,
      attempt,
      `UPDATE ${this.t.jobs} SET state = 'completed', result = $3::jsonb, lease_expires_at = NULL, worker_id = NULL, update_time = clock_timestamp()
       WHERE id = $1 AND attempt = $2::integer AND state = 'leased' RETURNING 1 AS one`,
      [result === undefined ? null : json(result)],
    );
  }

  fail(_ctx: RequestContext, jobId: string, attempt: number, error: string, retryAt?: Date): Promise<void> {
    return this.fenced(
      jobId,
      attempt,
      `UPDATE ${this.t.jobs} SET
         state = CASE WHEN attempt < max_attempts THEN 'queued' ELSE 'failed' END,
         run_at = CASE WHEN attempt < max_attempts THEN COALESCE($4::timestamptz, clock_timestamp()) ELSE run_at END,
         last_error = $3::text, lease_expires_at = NULL, worker_id = NULL, update_time = clock_timestamp()
       WHERE id = $1 AND attempt = $2::integer AND state = 'leased' RETURNING 1 AS one`,
      [error, retryAt === undefined ? null : retryAt.toISOString()],
    );
  }

  release(_ctx: RequestContext, jobId: string, attempt: number): Promise<void> {
    return this.fenced(
      jobId,
      attempt,
      `UPDATE ${this.t.jobs} SET state = 'queued', attempt = attempt - 1, lease_expires_at = NULL, worker_id = NULL, update_time = clock_timestamp()
       WHERE id = $1 AND attempt = $2::integer AND state = 'leased' RETURNING 1 AS one`,
      [],
    );
  }

  async get(_ctx: RequestContext, jobId: string): Promise<QueuedJob | undefined> {
    const { rows } = await run(this.db(), `SELECT ${JOB_COLUMNS} FROM ${this.t.jobs} WHERE id = $1`, [jobId]);
    return rows[0] === undefined ? undefined : toJob(rows[0]);
  }
}
