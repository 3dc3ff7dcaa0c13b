import type { SqlConnection, SqlPool, SqlResult } from './sql-client.js';

/** What `pglitePool` needs from a PGlite instance (`@electric-sql/pglite`), typed structurally. */
export interface PGliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  close(): Promise<void>;
}

/**
 * A {@link SqlPool} over an embedded PGlite database. PGlite is one session, so this behaves as a pool
 * of exactly one connection: a checked-out connection (a transaction) has the database to itself and
 * pool-level queries wait until it is released. Consequently, inside `storage.transaction(...)` use
 * the `tx` stores only; a root-store call there would wait for the transaction forever.
 *
 * @param options.closeOnEnd close the PGlite instance when the pool ends (default false: the caller owns it).
 */
export function pglitePool(db: PGliteLike, options: { closeOnEnd?: boolean } = {}): SqlPool {
  let tail: Promise<void> = Promise.resolve();
  const acquire = async (): Promise<() => void> => {
    let release!: () => void;
    const next = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = tail;
    tail = previous.then(() => next);
    await previous;
    return release;
  };
  const run = async (text: string, params?: unknown[]): Promise<SqlResult> => {
    const result = await db.query(text, params);
    return { rows: result.rows as Record<string, unknown>[] };
  };
  return {
    async query(text, params) {
      const release = await acquire();
      try {
        return await run(text, params);
      } finally {
        release();
      }
    },
    async connect(): Promise<SqlConnection> {
      const release = await acquire();
      let released = false;
      return {
        query: run,
        release() {
          if (released) return;
          released = true;
          release();
        },
      };
    },
    async end() {
      if (options.closeOnEnd === true) await db.close();
    },
  };
}
