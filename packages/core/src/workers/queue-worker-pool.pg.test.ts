import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { postgresStorage, pglitePool, type SqlPool } from '../../../plugin-storage-postgres/src/index.js';
import { silentLogger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { LifecycleContext } from '../kernel/plugin.js';
import type { Token } from '../kernel/token.js';
import { storageToken } from '../kernel/tokens.js';
import { describeQueueWorkerScenarios } from './queue-worker-scenarios.js';

/**
 * The worker scenarios on PostgreSQL: DATABASE_URL when set (a fresh schema per test, dropped after),
 * else an in-memory PGlite.
 */
const databaseUrl = process.env.DATABASE_URL || undefined;

const lifecycle: LifecycleContext = {
  resolver: { resolve: () => { throw new Error('not bound'); }, resolveAll: () => [], isBound: () => false },
  logger: silentLogger,
  signal: new AbortController().signal,
};

describeQueueWorkerScenarios(databaseUrl ? 'PostgreSQL (DATABASE_URL)' : 'PostgreSQL (embedded PGlite)', async () => {
  let pool: SqlPool;
  let close: () => Promise<void>;
  if (databaseUrl) {
    const opened = new pg.Pool({ connectionString: databaseUrl, max: 20 });
    pool = opened;
    close = () => opened.end();
  } else {
    const db = await PGlite.create();
    pool = pglitePool(db);
    close = () => db.close();
  }
  const schema = `berth_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const plugin = postgresStorage({ pool, schema });
  let storage: Storage | undefined;
  plugin.register({
    bindValue<T>(token: Token<T>, value: T) {
      if (token.key === storageToken.key) storage = value as unknown as Storage;
    },
    bindFactory() {},
    contribute() {},
  });
  await plugin.start?.(lifecycle);
  if (storage === undefined) throw new Error('postgresStorage bound no storage');
  return {
    storage,
    async close() {
      await plugin.stop?.(lifecycle);
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await close();
    },
  };
});
