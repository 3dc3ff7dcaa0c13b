import type pg from 'pg';
import { definePlugin, storageToken, traceStorage, tracingEnabled, type BlobStore, type GatewayPlugin } from '@berth/core';
import { migrate } from './migrations.js';
import { PostgresStorage } from './postgres-storage.js';
import type { SqlPool } from './sql-client.js';

export interface PostgresStorageOptions {
  /** `postgres://user@host:5432/db`. The plugin opens a pool on start and closes it on stop. */
  readonly connectionString?: string;
  /**
   * A pool the host owns (a `pg.Pool`, or `pglitePool(db)`): used as is and not closed on stop.
   * Exactly one of `connectionString` and `pool`.
   */
  readonly pool?: SqlPool;
  /** Schema holding Berth's tables; created if missing. Default `public`. */
  readonly schema?: string;
  /** Let destructive migrations run (only once no instance of the previous release is left). */
  readonly allowDestructiveMigrations?: boolean;
  /** Connections of the pool the plugin opens. Default 10. */
  readonly maxConnections?: number;
  /** Attempts of a transaction that hits a serialization failure or deadlock. Default 3. */
  readonly transactionAttempts?: number;
  /** Where blobs go instead of this database (e.g. an S3 store); default the database's chunk tables. */
  readonly blobs?: BlobStore;
}

/**
 * The PostgreSQL storage plugin: binds `storageToken` to a {@link PostgresStorage}. `start` opens the
 * pool (unless one was given) and runs the migrations; `stop` closes the pool it opened. With an
 * OpenTelemetry SDK registered when the gateway is built, every storage call is a span (`traceStorage`).
 *
 * @throws Error at creation when neither or both of `connectionString` and `pool` are given, or the
 *   schema name is not a plain identifier; MigrationError from `start` when a destructive migration is
 *   pending without `allowDestructiveMigrations`.
 */
export function postgresStorage(options: PostgresStorageOptions): GatewayPlugin {
  if ((options.connectionString === undefined) === (options.pool === undefined)) {
    throw new Error('postgresStorage: pass exactly one of connectionString and pool');
  }
  const schema = options.schema ?? 'public';
  const storage = new PostgresStorage({
    schema,
    ...(options.transactionAttempts === undefined ? {} : { transactionAttempts: options.transactionAttempts }),
    ...(options.blobs === undefined ? {} : { blobs: options.blobs }),
  });
  let owned: pg.Pool | undefined;
  return definePlugin({
    id: 'storage-postgres',
    register(binder) {
      binder.bindValue(storageToken, tracingEnabled() ? traceStorage(storage, 'postgresql') : storage);
    },
    async start(ctx) {
      let pool: SqlPool;
      if (options.pool !== undefined) {
        pool = options.pool;
      } else {
        // Loaded here: a host that only links this plugin (e.g. to choose storage at run time) does not load pg.
        const { default: driver } = await import('pg');
        owned = new driver.Pool({ connectionString: options.connectionString, max: options.maxConnections ?? 10 });
        // An idle connection that dies emits 'error' on the pool; unhandled, it would crash the process.
        owned.on('error', (error) => ctx.logger.warn({ error: error.message }, 'PostgreSQL idle connection error'));
        pool = owned;
      }
      try {
        const applied = await migrate(pool, { schema, allowDestructive: options.allowDestructiveMigrations === true });
        if (applied.length > 0) ctx.logger.info({ schema, applied }, 'PostgreSQL storage migrated');
      } catch (error) {
        await owned?.end().catch(() => undefined);
        owned = undefined;
        throw error;
      }
      storage.attach(pool);
    },
    async stop() {
      storage.detach();
      const pool = owned;
      owned = undefined;
      await pool?.end();
    },
  });
}
