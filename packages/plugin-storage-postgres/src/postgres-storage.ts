import { unavailable, type BlobStore, type StorageStats, type JobQueue, type KeyValueStore, type Outbox, type RequestContext, type ResourceStore, type Storage, type StorageTransaction } from '@berth/core';
import { PgBlobStore } from './pg-blob-store.js';
import { PgJobQueue } from './pg-job-queue.js';
import { PgKeyValueStore } from './pg-kv-store.js';
import { PgOutbox } from './pg-outbox.js';
import { PgResourceStore } from './pg-resource-store.js';
import { runTransaction } from './pg-transaction.js';
import { run, tablesOf, type ExecutorSource, type Tables } from './pg-support.js';
import type { SqlPool } from './sql-client.js';

const DEFAULT_TRANSACTION_ATTEMPTS = 3;

export interface PostgresStorageConfig {
  readonly schema: string;
  /** Attempts of a transaction that hits a serialization failure or deadlock (default 3). */
  readonly transactionAttempts?: number;
  /** Where blobs go instead of this database's chunk tables (e.g. an S3 store). */
  readonly blobs?: BlobStore;
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
    this.blobs = config.blobs ?? new PgBlobStore(this.tables, () => this.requirePool());
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

  /** One database transaction on a connection of its own; see `runTransaction`. */
  transaction<T>(_ctx: RequestContext, work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
    return runTransaction(this.tables, () => this.requirePool(), this.transactionAttempts, work);
  }

  /** Jobs not completed by queue and state (one grouped count over the partial indexes), and the pool's connections when the driver reports them (`pg.Pool` does). */
  async stats(_ctx: RequestContext): Promise<StorageStats> {
    const pool = this.requirePool();
    const { rows } = await run(pool, `SELECT queue, state, count(*)::integer AS count FROM ${this.tables.jobs} WHERE state <> 'completed' GROUP BY queue, state`);
    const jobs = rows.map((row) => ({ queue: String(row.queue), state: row.state as StorageStats['jobs'][number]['state'], count: Number(row.count) }));
    const { totalCount, idleCount, waitingCount, options } = pool;
    if (totalCount === undefined || idleCount === undefined || waitingCount === undefined) return { jobs };
    return { jobs, pool: { total: totalCount, idle: idleCount, waiting: waitingCount, max: options?.max ?? totalCount } };
  }
}
