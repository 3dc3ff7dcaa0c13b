import type { StorageTransaction } from '@berth/core';
import { isRetryableConflict, mapDriverError } from './driver-errors.js';
import { PgJobQueue } from './pg-job-queue.js';
import { PgOutbox } from './pg-outbox.js';
import { PgResourceStore } from './pg-resource-store.js';
import { run, type ExecutorSource, type Tables } from './pg-support.js';
import type { SqlPool } from './sql-client.js';

/**
 * Runs `work` in one database transaction (READ COMMITTED) on a connection of its own; the `tx`
 * stores use that connection. `tx.lock` is an advisory lock and `tx.resources.getForUpdate` a row lock,
 * both held until COMMIT or ROLLBACK. Serialization failures and deadlocks roll back and rerun `work` up to
 * `attempts` times, then surface as ABORTED. Any other throw rolls back and is rethrown.
 * Root-store calls made inside `work` run on other connections, outside the transaction.
 */
export async function runTransaction<T>(
  tables: Tables,
  pool: () => SqlPool,
  attempts: number,
  work: (tx: StorageTransaction) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let client;
    try {
      client = await pool().connect();
    } catch (error) {
      throw mapDriverError(error);
    }
    let broken = false;
    try {
      await run(client, 'BEGIN');
      const connection = client;
      const db: ExecutorSource = () => connection;
      const tx: StorageTransaction = {
        resources: new PgResourceStore(tables, db),
        queue: new PgJobQueue(tables, db),
        outbox: new PgOutbox(tables, db),
        // A transaction-scoped advisory lock on a 64-bit hash of schema and key: released by COMMIT or
        // ROLLBACK. Under READ COMMITTED every later statement takes a new snapshot, so it sees what
        // the previous holder committed. A hash collision only makes two keys wait for each other.
        lock: async (_ctx, key) => {
          await run(connection, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`berth:${tables.schema}:${key}`]);
        },
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
      if (isRetryableConflict(error) && attempt < attempts) continue;
      throw mapDriverError(error);
    } finally {
      client.release(broken);
    }
  }
}
