import type { SqlPool } from './sql-client.js';

/**
 * One schema change. Applied once, in order, recorded in `berth_migrations`.
 *
 * Rolling-upgrade rule: during a rolling upgrade old and new gateway instances share one database, and
 * the new release migrates it while old instances still run. So every release may only add compatible
 * changes — new tables, new nullable or defaulted columns, new indexes — that the previous release keeps
 * working against. Dropping or renaming anything, or tightening a constraint, happens at the earliest one
 * release after the code stopped using it, in a migration marked `destructive`, which refuses to run
 * unless the operator passes `allowDestructiveMigrations: true` (after every old instance is gone).
 * Never edit a migration that has shipped: add a new one.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly destructive?: boolean;
  /** Statements for schema `s` (already quoted), run one by one in the migration transaction. */
  readonly statements: (s: string) => readonly string[];
}

/**
 * Index expressions, frozen as shipped. They equal what filter-to-sql generates for these fields (a test
 * checks it); if the generation changes, add a migration with new indexes rather than editing these.
 */
export const CREATE_TIME_SORT_KEY = String.raw`((CASE WHEN jsonb_typeof((data #> '{createTime}')) = 'string' AND ((data #> '{createTime}') #>> '{}') ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z$' THEN (data #> '{createTime}') #>> '{}' END) COLLATE "C")`;
export const STATE_KEY = String.raw`((CASE WHEN jsonb_typeof((data #> '{state}')) = 'string' THEN (data #> '{state}') #>> '{}' END) COLLATE "C")`;
export const BASE_MODEL_KEY = String.raw`((CASE WHEN jsonb_typeof((data #> '{baseModel}')) = 'string' THEN (data #> '{baseModel}') #>> '{}' END) COLLATE "C")`;

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'resources',
    statements: (s) => [
      `CREATE SEQUENCE IF NOT EXISTS ${s}.berth_resource_version_seq`,
      `CREATE TABLE IF NOT EXISTS ${s}.berth_resources (
        name text COLLATE "C" PRIMARY KEY,
        parent text COLLATE "C" NOT NULL,
        collection text COLLATE "C" NOT NULL,
        data jsonb NOT NULL,
        version bigint NOT NULL,
        create_time timestamptz NOT NULL DEFAULT clock_timestamp(),
        update_time timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
      // Expression indexes for the default order (create_time, then name) and the common filters
      // (state, baseModel): written exactly as filter-to-sql generates them, or the planner ignores them.
      `CREATE INDEX IF NOT EXISTS berth_resources_create_time_idx ON ${s}.berth_resources
        (parent, collection, ${CREATE_TIME_SORT_KEY} NULLS FIRST, name NULLS FIRST)`,
      `CREATE INDEX IF NOT EXISTS berth_resources_state_idx ON ${s}.berth_resources
        (parent, collection, ${STATE_KEY})`,
      `CREATE INDEX IF NOT EXISTS berth_resources_base_model_idx ON ${s}.berth_resources
        (parent, collection, ${BASE_MODEL_KEY})`,
    ],
  },
  {
    version: 2,
    name: 'blobs',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.berth_blobs (
        key text COLLATE "C" PRIMARY KEY,
        bytes bytea NOT NULL,
        content_type text NOT NULL,
        size integer NOT NULL,
        create_time timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
    ],
  },
  {
    version: 3,
    name: 'jobs',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.berth_jobs (
        id text PRIMARY KEY,
        queue text NOT NULL,
        payload jsonb NOT NULL,
        state text NOT NULL,
        attempt integer NOT NULL DEFAULT 0,
        max_attempts integer NOT NULL,
        run_at timestamptz NOT NULL,
        lease_expires_at timestamptz,
        worker_id text,
        last_error text,
        result jsonb,
        dedupe_key text,
        seq bigserial NOT NULL,
        create_time timestamptz NOT NULL DEFAULT clock_timestamp(),
        update_time timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
      `CREATE UNIQUE INDEX IF NOT EXISTS berth_jobs_dedupe_idx ON ${s}.berth_jobs (queue, dedupe_key) WHERE dedupe_key IS NOT NULL`,
      `CREATE INDEX IF NOT EXISTS berth_jobs_runnable_idx ON ${s}.berth_jobs (queue, run_at, seq) WHERE state = 'queued'`,
      `CREATE INDEX IF NOT EXISTS berth_jobs_leased_idx ON ${s}.berth_jobs (queue, lease_expires_at) WHERE state = 'leased'`,
    ],
  },
  {
    version: 4,
    name: 'outbox',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.berth_outbox (
        sequence bigserial PRIMARY KEY,
        topic text NOT NULL,
        payload jsonb NOT NULL,
        create_time timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
      `CREATE TABLE IF NOT EXISTS ${s}.berth_outbox_consumers (
        consumer text PRIMARY KEY,
        position bigint NOT NULL
      )`,
    ],
  },
  {
    version: 5,
    name: 'kv',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.berth_kv (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        expires_at timestamptz
      )`,
      `CREATE INDEX IF NOT EXISTS berth_kv_expires_idx ON ${s}.berth_kv (expires_at) WHERE expires_at IS NOT NULL`,
    ],
  },
  {
    version: 6,
    name: 'resource key columns',
    // Stored generated columns with the typed values of the hot list fields (the same expressions as
    // the version-1 indexes), and composite indexes over them. Queries that name the columns get
    // index-only counts and ordered, bounded scans for `state`/`baseModel` filters ordered by
    // `createTime`. Additive: the previous release keeps using the version-1 expression indexes, which
    // a later destructive migration may drop. Adding the columns rewrites the table once.
    statements: (s) => [
      `ALTER TABLE ${s}.berth_resources
        ADD COLUMN IF NOT EXISTS state_key text COLLATE "C" GENERATED ALWAYS AS (${STATE_KEY}) STORED,
        ADD COLUMN IF NOT EXISTS base_model_key text COLLATE "C" GENERATED ALWAYS AS (${BASE_MODEL_KEY}) STORED,
        ADD COLUMN IF NOT EXISTS create_time_key text COLLATE "C" GENERATED ALWAYS AS (${CREATE_TIME_SORT_KEY}) STORED`,
      `CREATE INDEX IF NOT EXISTS berth_resources_time_key_idx ON ${s}.berth_resources
        (parent, collection, create_time_key NULLS FIRST, name NULLS FIRST)`,
      `CREATE INDEX IF NOT EXISTS berth_resources_state_time_key_idx ON ${s}.berth_resources
        (parent, collection, state_key, create_time_key NULLS FIRST, name NULLS FIRST)`,
      `CREATE INDEX IF NOT EXISTS berth_resources_model_state_time_key_idx ON ${s}.berth_resources
        (parent, collection, base_model_key, state_key, create_time_key NULLS FIRST, name NULLS FIRST)`,
    ],
  },
  {
    version: 7,
    name: 'blob chunks and checksums',
    // Streamed blobs: an object's bytes live in 1 MiB rows of berth_blob_chunks under a fresh `version`
    // id, written before the object's row is switched to that version in one transaction (readers see
    // the old object or the new one, never a part). Small objects stay inline in `bytes` (chunk_bytes
    // NULL). `sha256` is what every write records. Additive: the previous release keeps reading and
    // writing inline rows; the trigger notices its writes (they leave `version` as it was) and marks such
    // a row inline with no recorded checksum, so this release reads it correctly (and computes the
    // checksum). Chunks of versions no row references any more are swept (PgBlobStore.sweepOrphanChunks).
    statements: (s) => [
      `ALTER TABLE ${s}.berth_blobs
        ADD COLUMN IF NOT EXISTS sha256 text,
        ADD COLUMN IF NOT EXISTS version text COLLATE "C",
        ADD COLUMN IF NOT EXISTS chunk_bytes integer`,
      `ALTER TABLE ${s}.berth_blobs ALTER COLUMN size TYPE bigint`,
      `CREATE INDEX IF NOT EXISTS berth_blobs_version_idx ON ${s}.berth_blobs (version) WHERE version IS NOT NULL`,
      `CREATE TABLE IF NOT EXISTS ${s}.berth_blob_chunks (
        version text COLLATE "C" NOT NULL,
        seq integer NOT NULL,
        bytes bytea NOT NULL,
        create_time timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (version, seq)
      )`,
      // Model weights and most uploads do not compress: store chunks as they are.
      `ALTER TABLE ${s}.berth_blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL`,
      `CREATE OR REPLACE FUNCTION ${s}.berth_blobs_legacy_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.version IS NOT DISTINCT FROM OLD.version THEN
          NEW.version := NULL;
          NEW.chunk_bytes := NULL;
          NEW.sha256 := NULL;
        END IF;
        RETURN NEW;
      END $$`,
      `DROP TRIGGER IF EXISTS berth_blobs_legacy_write ON ${s}.berth_blobs`,
      `CREATE TRIGGER berth_blobs_legacy_write BEFORE UPDATE ON ${s}.berth_blobs
        FOR EACH ROW EXECUTE FUNCTION ${s}.berth_blobs_legacy_write()`,
    ],
  },
];

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/** Validates and double-quotes a schema name (letters, digits, underscores; not starting with a digit). */
export function quoteSchema(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new MigrationError(`schema "${schema}" must be letters, digits and underscores (at most 63, not starting with a digit)`);
  }
  return `"${schema}"`;
}

export interface MigrateOptions {
  readonly schema: string;
  readonly allowDestructive?: boolean;
  /** Defaults to the built-in list; tests pass their own. */
  readonly migrations?: readonly Migration[];
}

/**
 * Brings the schema up to date. Runs in one transaction under a transaction-scoped advisory lock keyed
 * by the schema, so instances starting together apply each migration exactly once: the others wait,
 * then find nothing left to do. Versions recorded but unknown to this release (a newer instance already
 * migrated) are left alone, which the rolling-upgrade rule makes safe.
 *
 * Throws MigrationError when a pending migration is destructive and `allowDestructive` is not set.
 * @returns the versions applied now.
 */
export async function migrate(pool: SqlPool, options: MigrateOptions): Promise<number[]> {
  const s = quoteSchema(options.schema);
  const list = [...(options.migrations ?? migrations)].sort((a, b) => a.version - b.version);
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    try {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`berth:migrate:${options.schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.berth_migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
        )`,
      );
      const { rows } = await client.query(`SELECT version FROM ${s}.berth_migrations`);
      const done = new Set(rows.map((row) => Number(row.version)));
      const pending = list.filter((m) => !done.has(m.version));
      const refused = pending.filter((m) => m.destructive === true);
      if (refused.length > 0 && options.allowDestructive !== true) {
        throw new MigrationError(
          `destructive migrations pending (${refused.map((m) => `${m.version} ${m.name}`).join(', ')}); ` +
            'stop every instance of the previous release, then start with allowDestructiveMigrations: true',
        );
      }
      for (const migration of pending) {
        for (const statement of migration.statements(s)) await client.query(statement);
        await client.query(`INSERT INTO ${s}.berth_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      }
      await client.query('COMMIT');
      return pending.map((m) => m.version);
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError;
      });
      throw error;
    }
  } finally {
    client.release(broken !== undefined);
  }
}
