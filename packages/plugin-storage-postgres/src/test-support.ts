import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { silentLogger, storageToken, type GatewayPlugin, type LifecycleContext, type Storage, type Token } from '@berth/core';
import { pglitePool } from './pglite-pool.js';
import { postgresStorage, type PostgresStorageOptions } from './postgres-storage-plugin.js';
import type { SqlPool } from './sql-client.js';

/** Test helpers (not exported from the package). */

export const databaseUrl = process.env.DATABASE_URL;

export const lifecycle: LifecycleContext = {
  resolver: {
    resolve: () => {
      throw new Error('not bound');
    },
    resolveAll: () => [],
    isBound: () => false,
  },
  logger: silentLogger,
  signal: new AbortController().signal,
};

/** Registers a plugin with a binder that only records values, and returns the bound storage. */
export function boundStorage(plugin: GatewayPlugin): Storage {
  let storage: Storage | undefined;
  plugin.register({
    bindValue<T>(token: Token<T>, value: T) {
      if (token.key === storageToken.key) storage = value as unknown as Storage;
    },
    bind() {},
    contribute() {},
  });
  if (storage === undefined) throw new Error(`${plugin.id} bound no storage`);
  return storage;
}

export function randomSchema(): string {
  return `berth_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

export interface TestDatabase {
  readonly kind: 'postgres' | 'pglite';
  readonly pool: SqlPool;
  close(): Promise<void>;
}

/** A pool on DATABASE_URL when set, else on a fresh in-memory PGlite. */
export async function openTestDatabase(): Promise<TestDatabase> {
  if (databaseUrl !== undefined && databaseUrl !== '') {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
    return { kind: 'postgres', pool, close: () => pool.end() };
  }
  const db = await PGlite.create();
  return { kind: 'pglite', pool: pglitePool(db), close: () => db.close() };
}

/** Starts the plugin on a fresh schema of `database`; cleanup stops it and drops the schema. */
export async function startOnFreshSchema(
  database: TestDatabase,
  options: Omit<PostgresStorageOptions, 'pool' | 'connectionString' | 'schema'> = {},
): Promise<{ storage: Storage; schema: string; cleanup(): Promise<void> }> {
  const schema = randomSchema();
  const plugin = postgresStorage({ ...options, pool: database.pool, schema });
  const storage = boundStorage(plugin);
  await plugin.start?.(lifecycle);
  return {
    storage,
    schema,
    async cleanup() {
      await plugin.stop?.(lifecycle);
      await database.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

/**
 * Storage on a fresh schema of its own test database, and how to close both: what core's contract and scenario
 * suites (`describeQueueWorkerScenarios`, `describeBackgroundResponseScenarios`) open before each test.
 */
export async function openScenarioStorage(): Promise<{ storage: Storage; close(): Promise<void> }> {
  const database = await openTestDatabase();
  const started = await startOnFreshSchema(database);
  return {
    storage: started.storage,
    async close() {
      await started.cleanup();
      await database.close();
    },
  };
}

/** The label of the scenario suites: which database they run on. */
export const scenarioLabel = databaseUrl ? 'PostgreSQL (DATABASE_URL)' : 'PostgreSQL (embedded PGlite)';
