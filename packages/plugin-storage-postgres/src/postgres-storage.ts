import { randomUUID } from 'node:crypto';
import {
  aborted,
  alreadyExists,
  notFound,
  unavailable,
  type BlobObject,
  type BlobStore,
  type ClaimedJob,
  type EnqueueRequest,
  type JobQueue,
  type JsonObject,
  type JsonValue,
  type KeyValueStore,
  type ListQuery,
  type ListResult,
  type Outbox,
  type OutboxEvent,
  type QueuedJob,
  type QueuedJobState,
  type RequestContext,
  type ResourceStore,
  type Storage,
  type StorageTransaction,
  type StoredResource,
} from '@berth/core';
import { isRetryableConflict, mapDriverError } from './driver-errors.js';
import { SqlParams, descendingHeadRanges, filterToSql, keysetToSql, orderByToSql } from './filter-to-sql.js';
import { quoteSchema } from './migrations.js';
import type { SqlExecutor, SqlPool, SqlResult } from './sql-client.js';

const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_TRANSACTION_ATTEMPTS = 3;

/** Table names of one schema, quoted once. */
interface Tables {
  readonly schema: string;
  readonly resources: string;
  readonly versionSeq: string;
  readonly blobs: string;
  readonly jobs: string;
  readonly outbox: string;
  readonly consumers: string;
  readonly kv: string;
}

function tablesOf(schema: string): Tables {
  const s = quoteSchema(schema);
  return {
    schema,
    resources: `${s}.berth_resources`,
    versionSeq: `${s}.berth_resource_version_seq`,
    blobs: `${s}.berth_blobs`,
    jobs: `${s}.berth_jobs`,
    outbox: `${s}.berth_outbox`,
    consumers: `${s}.berth_outbox_consumers`,
    kv: `${s}.berth_kv`,
  };
}

/** Runs one statement, translating driver errors to the port's codes. */
async function run(db: SqlExecutor, text: string, params: unknown[] = [], name?: string): Promise<SqlResult> {
  try {
    return await db.query(text, params);
  } catch (error) {
    throw mapDriverError(error, name);
  }
}

/** Where statements go: the pool, or the connection of a transaction. Throws UNAVAILABLE before start. */
type ExecutorSource = () => SqlExecutor;

const json = (value: JsonValue): string => JSON.stringify(value);

function parseJson(value: unknown): JsonValue {
  if (typeof value === 'string') return JSON.parse(value) as JsonValue;
  return value as JsonValue;
}

function iso(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

/** Etags are version numbers; anything else can never match (and must not reach a bigint cast). */
function etagVersion(etag: string): string | undefined {
  return /^[0-9]{1,18}$/.test(etag) ? etag : undefined;
}

function splitResourceName(name: string): { parent: string; collection: string } {
  const segments = name.split('/');
  if (segments.length < 2) return { parent: '', collection: '' };
  return { parent: segments.slice(0, -2).join('/'), collection: segments[segments.length - 2] ?? '' };
}

class PgResourceStore implements ResourceStore {
  constructor(
    private readonly t: Tables,
    private readonly db: ExecutorSource,
  ) {}

  async create(_ctx: RequestContext, name: string, data: JsonObject): Promise<StoredResource> {
    const { parent, collection } = splitResourceName(name);
    // ON CONFLICT DO NOTHING rather than a unique violation: inside a transaction a failed statement
    // would poison every later one, and a caller may well handle ALREADY_EXISTS and carry on.
    const { rows } = await run(
      this.db(),
      `INSERT INTO ${this.t.resources} (name, parent, collection, data, version)
       VALUES ($1, $2, $3, $4::jsonb, nextval('${this.t.versionSeq}'))
       ON CONFLICT (name) DO NOTHING
       RETURNING version::text AS version`,
      [name, parent, collection, json(data)],
      name,
    );
    const row = rows[0];
    if (row === undefined) throw alreadyExists(name);
    return { name, data: structuredClone(data), etag: text(row.version) };
  }

  async get(_ctx: RequestContext, name: string): Promise<StoredResource | undefined> {
    const { rows } = await run(this.db(), `SELECT data::text AS data, version::text AS version FROM ${this.t.resources} WHERE name = $1`, [name]);
    const row = rows[0];
    return row === undefined ? undefined : { name, data: parseJson(row.data) as JsonObject, etag: text(row.version) };
  }

  private async exists(db: SqlExecutor, name: string): Promise<boolean> {
    const { rows } = await run(db, `SELECT 1 AS one FROM ${this.t.resources} WHERE name = $1`, [name]);
    return rows.length > 0;
  }

  private mismatch(name: string): Error {
    return aborted(`${name} was changed concurrently (etag mismatch)`, { reason: 'ETAG_MISMATCH' });
  }

  async update(_ctx: RequestContext, name: string, data: JsonObject, expectedEtag: string): Promise<StoredResource> {
    const db = this.db();
    const version = etagVersion(expectedEtag);
    if (version !== undefined) {
      // The version check sits in the UPDATE's WHERE: a concurrent writer blocks on the row lock, then
      // re-checks against the committed version and updates nothing.
      const { rows } = await run(
        db,
        `UPDATE ${this.t.resources} SET data = $3::jsonb, version = nextval('${this.t.versionSeq}'), update_time = clock_timestamp()
         WHERE name = $1 AND version = $2::bigint
         RETURNING version::text AS version`,
        [name, version, json(data)],
      );
      const row = rows[0];
      if (row !== undefined) return { name, data: structuredClone(data), etag: text(row.version) };
    }
    if (await this.exists(db, name)) throw this.mismatch(name);
    throw notFound(name);
  }

  async delete(_ctx: RequestContext, name: string, expectedEtag?: string): Promise<void> {
    const db = this.db();
    if (expectedEtag === undefined) {
      const { rows } = await run(db, `DELETE FROM ${this.t.resources} WHERE name = $1 RETURNING 1 AS one`, [name]);
      if (rows.length === 0) throw notFound(name);
      return;
    }
    const version = etagVersion(expectedEtag);
    if (version !== undefined) {
      const { rows } = await run(db, `DELETE FROM ${this.t.resources} WHERE name = $1 AND version = $2::bigint RETURNING 1 AS one`, [name, version]);
      if (rows.length > 0) return;
    }
    if (await this.exists(db, name)) throw this.mismatch(name);
    throw notFound(name);
  }

  async list(_ctx: RequestContext, query: ListQuery): Promise<ListResult> {
    const db = this.db();
    const pageSize = Math.max(0, Math.floor(query.pageSize));
    const base = (params: SqlParams): string[] => {
      const where = ['parent = $1', 'collection = $2'];
      if (query.filter !== undefined) where.push(filterToSql(query.filter, params));
      return where;
    };
    /** One page query; `range` narrows it to one of the descending head ranges. */
    const select = async (limit: number, range?: 'upTo' | 'nulls'): Promise<Record<string, unknown>[]> => {
      const params = new SqlParams([query.parent, query.collection]);
      const where = base(params);
      if (query.after !== undefined) {
        where.push(keysetToSql(query.orderBy, query.after, params));
        const ranges = range === undefined ? undefined : descendingHeadRanges(query.orderBy, query.after, params);
        const narrowing = range === undefined ? undefined : ranges?.[range];
        if (narrowing !== undefined) where.push(narrowing);
      }
      const order = query.orderBy.length === 0 ? 'name' : orderByToSql(query.orderBy, params);
      const placeholder = params.add(String(limit));
      const { rows } = await run(
        db,
        // Selected columns get aliases unlike any column: ORDER BY would take a bare output name first.
        `SELECT name, data::text AS data_text, version::text AS version_text FROM ${this.t.resources}
         WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${placeholder}::integer`,
        params.values,
      );
      return rows;
    };
    const countParams = new SqlParams([query.parent, query.collection]);
    const countSql = `SELECT count(*)::text AS total FROM ${this.t.resources} WHERE ${base(countParams).join(' AND ')}`;
    const ranges = query.after === undefined ? undefined : descendingHeadRanges(query.orderBy, query.after, new SqlParams());
    const page = async (): Promise<Record<string, unknown>[]> => {
      if (ranges === undefined) return select(pageSize + 1);
      // A descending first term: read the index range up to the position, then the nulls (which sort
      // last), each a bounded scan, instead of one scan from the top of the index.
      const upTo = await select(pageSize + 1, 'upTo');
      if (upTo.length > pageSize || ranges.nulls === undefined) return upTo;
      return [...upTo, ...(await select(pageSize + 1 - upTo.length, 'nulls'))];
    };
    // The page and the count run side by side (on two pool connections; queued on a transaction's one).
    const [rows, count] = await Promise.all([page(), run(db, countSql, countParams.values)]);
    const items = rows.slice(0, pageSize).map((row) => ({ name: text(row.name), data: parseJson(row.data_text) as JsonObject, etag: text(row.version_text) }));
    return { items, totalSize: Number(count.rows[0]?.total ?? 0), hasMore: rows.length > pageSize };
  }
}

class PgBlobStore implements BlobStore {
  constructor(
    private readonly t: Tables,
    private readonly db: ExecutorSource,
  ) {}

  async put(_ctx: RequestContext, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await run(
      this.db(),
      `INSERT INTO ${this.t.blobs} (key, bytes, content_type, size) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key) DO UPDATE SET bytes = excluded.bytes, content_type = excluded.content_type, size = excluded.size, create_time = clock_timestamp()`,
      [key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), contentType, bytes.byteLength],
    );
  }

  async get(_ctx: RequestContext, key: string): Promise<BlobObject | undefined> {
    const { rows } = await run(this.db(), `SELECT bytes, content_type, size, create_time FROM ${this.t.blobs} WHERE key = $1`, [key]);
    const row = rows[0];
    if (row === undefined) return undefined;
    const bytes = row.bytes as Uint8Array;
    return { bytes: new Uint8Array(bytes), contentType: text(row.content_type), size: Number(row.size), createTime: iso(row.create_time) };
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    const { rows } = await run(this.db(), `DELETE FROM ${this.t.blobs} WHERE key = $1 RETURNING 1 AS one`, [key]);
    return rows.length > 0;
  }

  async list(_ctx: RequestContext, prefix: string): Promise<string[]> {
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const { rows } = await run(this.db(), `SELECT key FROM ${this.t.blobs} WHERE key LIKE $1 ESCAPE '\\' ORDER BY key`, [pattern]);
    return rows.map((row) => text(row.key));
  }
}

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

class PgJobQueue implements JobQueue {
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

  async get(_ctx: RequestContext, jobId: string): Promise<QueuedJob | undefined> {
    const { rows } = await run(this.db(), `SELECT ${JOB_COLUMNS} FROM ${this.t.jobs} WHERE id = $1`, [jobId]);
    return rows[0] === undefined ? undefined : toJob(rows[0]);
  }
}

class PgOutbox implements Outbox {
  constructor(
    private readonly t: Tables,
    private readonly db: ExecutorSource,
  ) {}

  async publish(_ctx: RequestContext, topic: string, payload: JsonValue): Promise<void> {
    // Publishers serialise on a transaction-scoped advisory lock, so sequence numbers are handed out in
    // commit order: a consumer that acknowledged N can never later find an event below N appear.
    await run(
      this.db(),
      `WITH serialised AS (SELECT pg_advisory_xact_lock(hashtext($1)) AS locked)
       INSERT INTO ${this.t.outbox} (topic, payload) SELECT $2, $3::jsonb FROM serialised`,
      [`berth:outbox:${this.t.schema}`, topic, json(payload)],
    );
  }

  async poll(_ctx: RequestContext, consumer: string, limit: number): Promise<OutboxEvent[]> {
    const { rows } = await run(
      this.db(),
      `SELECT sequence::text AS sequence_text, topic, payload::text AS payload, create_time FROM ${this.t.outbox}
       WHERE sequence > COALESCE((SELECT position FROM ${this.t.consumers} WHERE consumer = $1), 0)
       ORDER BY sequence LIMIT $2::integer`,
      [consumer, Math.max(0, Math.floor(limit))],
    );
    return rows.map((row) => ({ sequence: Number(row.sequence_text), topic: text(row.topic), payload: parseJson(row.payload), createTime: iso(row.create_time) }));
  }

  async prune(_ctx: RequestContext, createdBefore: Date): Promise<number> {
    const { rows } = await run(
      this.db(),
      `WITH removed AS (DELETE FROM ${this.t.outbox} WHERE create_time < $1::timestamptz RETURNING 1) SELECT count(*)::int AS n FROM removed`,
      [createdBefore.toISOString()],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async ack(_ctx: RequestContext, consumer: string, sequence: number): Promise<void> {
    await run(
      this.db(),
      `INSERT INTO ${this.t.consumers} (consumer, position) VALUES ($1, $2::bigint)
       ON CONFLICT (consumer) DO UPDATE SET position = GREATEST(${this.t.consumers}.position, excluded.position)`,
      [consumer, String(Math.floor(sequence))],
    );
  }
}

const LIVE = `(expires_at IS NULL OR expires_at > clock_timestamp())`;

/** Every this many writes with a ttl, expired rows are swept (bounded), so the table does not keep them forever. */
const KV_SWEEP_EVERY = 256;
const KV_SWEEP_BATCH = 1000;

class PgKeyValueStore implements KeyValueStore {
  private writesWithTtl = 0;

  constructor(
    private readonly t: Tables,
    private readonly db: ExecutorSource,
  ) {}

  /**
   * Deletes up to KV_SWEEP_BATCH expired rows (reads already ignore them) and returns how many. Runs by
   * itself every KV_SWEEP_EVERY writes that carry a ttl; uses the partial index on expires_at.
   */
  async sweepExpired(): Promise<number> {
    const { rows } = await run(
      this.db(),
      `WITH removed AS (
         DELETE FROM ${this.t.kv} WHERE key IN (
           SELECT key FROM ${this.t.kv} WHERE expires_at IS NOT NULL AND expires_at <= clock_timestamp() LIMIT ${KV_SWEEP_BATCH}
         ) RETURNING 1)
       SELECT count(*)::int AS n FROM removed`,
      [],
    );
    return Number(rows[0]?.n ?? 0);
  }

  private async afterTtlWrite(ttlMs: number | undefined): Promise<void> {
    if (ttlMs === undefined) return;
    this.writesWithTtl += 1;
    if (this.writesWithTtl % KV_SWEEP_EVERY === 0) await this.sweepExpired().catch(() => undefined);
  }

  async get(_ctx: RequestContext, key: string): Promise<JsonValue | undefined> {
    const { rows } = await run(this.db(), `SELECT value::text AS value FROM ${this.t.kv} WHERE key = $1 AND ${LIVE}`, [key]);
    return rows[0] === undefined ? undefined : parseJson(rows[0].value);
  }

  async set(_ctx: RequestContext, key: string, value: JsonValue, options?: { ttlMs?: number; ifAbsent?: boolean }): Promise<boolean> {
    const onlyIfExpired = options?.ifAbsent === true ? `WHERE ${this.t.kv}.expires_at IS NOT NULL AND ${this.t.kv}.expires_at <= clock_timestamp()` : '';
    const { rows } = await run(
      this.db(),
      `INSERT INTO ${this.t.kv} (key, value, expires_at)
       VALUES ($1, $2::jsonb, clock_timestamp() + $3::double precision * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at ${onlyIfExpired}
       RETURNING 1 AS one`,
      [key, json(value), options?.ttlMs ?? null],
    );
    await this.afterTtlWrite(options?.ttlMs);
    return rows.length > 0;
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    const { rows } = await run(this.db(), `DELETE FROM ${this.t.kv} WHERE key = $1 RETURNING ${LIVE} AS live`, [key]);
    return rows[0]?.live === true;
  }

  async increment(_ctx: RequestContext, key: string, by: number, ttlMs?: number): Promise<number> {
    // A live counter keeps its expiry (the ttl opens a window); an expired or non-numeric one restarts.
    const kv = this.t.kv;
    const { rows } = await run(
      this.db(),
      `INSERT INTO ${kv} (key, value, expires_at)
       VALUES ($1, to_jsonb($2::numeric), clock_timestamp() + $3::double precision * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET
         value = CASE WHEN (${kv}.expires_at IS NULL OR ${kv}.expires_at > clock_timestamp()) AND jsonb_typeof(${kv}.value) = 'number'
           THEN to_jsonb((${kv}.value)::numeric + $2::numeric) ELSE excluded.value END,
         expires_at = CASE WHEN ${kv}.expires_at IS NULL OR ${kv}.expires_at > clock_timestamp() THEN ${kv}.expires_at ELSE excluded.expires_at END
       RETURNING value::text AS value`,
      [key, String(by), ttlMs ?? null],
    );
    await this.afterTtlWrite(ttlMs);
    return Number(parseJson(rows[0]?.value));
  }
}

export interface PostgresStorageConfig {
  readonly schema: string;
  /** Attempts of a transaction that hits a serialization failure or deadlock (default 3). */
  readonly transactionAttempts?: number;
}

/**
 * Every storage port on PostgreSQL. Statements go to the pool given to {@link PostgresStorage.attach};
 * before that (or after detach) every call is UNAVAILABLE. Tables are those of `migrations.ts`, in
 * the configured schema.
 */
export class PostgresStorage implements Storage {
  readonly resources: ResourceStore;
  readonly blobs: BlobStore;
  readonly queue: JobQueue;
  readonly outbox: Outbox;
  readonly kv: KeyValueStore;

  private pool: SqlPool | undefined;
  private readonly tables: Tables;
  private readonly transactionAttempts: number;

  constructor(config: PostgresStorageConfig) {
    this.tables = tablesOf(config.schema);
    this.transactionAttempts = Math.max(1, config.transactionAttempts ?? DEFAULT_TRANSACTION_ATTEMPTS);
    const db: ExecutorSource = () => this.requirePool();
    this.resources = new PgResourceStore(this.tables, db);
    this.blobs = new PgBlobStore(this.tables, db);
    this.queue = new PgJobQueue(this.tables, db);
    this.outbox = new PgOutbox(this.tables, db);
    this.kv = new PgKeyValueStore(this.tables, db);
  }

  /** Starts sending statements to `pool` (migrations must have run). */
  attach(pool: SqlPool): void {
    this.pool = pool;
  }

  /** Stops using the pool; later calls are UNAVAILABLE. Does not end the pool. */
  detach(): void {
    this.pool = undefined;
  }

  private requirePool(): SqlPool {
    if (this.pool === undefined) throw unavailable('PostgreSQL storage is not started', { reason: 'STORAGE_NOT_STARTED' });
    return this.pool;
  }

  /**
   * Runs `work` in one database transaction (READ COMMITTED) on a connection of its own; the `tx`
   * stores use that connection. Serialization failures and deadlocks roll back and rerun `work` up to
   * `transactionAttempts` times, then surface as ABORTED. Any other throw rolls back and is rethrown.
   * Root-store calls made inside `work` run on other connections, outside the transaction.
   */
  async transaction<T>(_ctx: RequestContext, work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const pool = this.requirePool();
      let client;
      try {
        client = await pool.connect();
      } catch (error) {
        throw mapDriverError(error);
      }
      let broken = false;
      try {
        await run(client, 'BEGIN');
        const connection = client;
        const db: ExecutorSource = () => connection;
        const tx: StorageTransaction = {
          resources: new PgResourceStore(this.tables, db),
          queue: new PgJobQueue(this.tables, db),
          outbox: new PgOutbox(this.tables, db),
        };
        const result = await work(tx);
        await run(client, 'COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        if (isRetryableConflict(error) && attempt < this.transactionAttempts) continue;
        throw mapDriverError(error);
      } finally {
        client.release(broken);
      }
    }
  }
}
