/**
 * The small slice of a PostgreSQL driver the adapter uses. `pg.Pool` satisfies it as is; `pglitePool`
 * adapts an embedded PGlite database. Keeping to this surface is what lets the same SQL run on both.
 *
 * Rows come back as plain objects. The adapter never relies on the driver's type parsing for anything
 * but text, numbers, booleans and timestamps: jsonb is selected as `::text` and parsed here, bigint as
 * `::text`, so both drivers yield the same values.
 */
export interface SqlResult {
  readonly rows: Record<string, unknown>[];
}

export interface SqlExecutor {
  query(text: string, params?: unknown[]): Promise<SqlResult>;
}

/** A connection checked out of the pool, used for one transaction. */
export interface SqlConnection extends SqlExecutor {
  /** Returns the connection; pass `true` (or the error) to discard a broken connection instead. */
  release(destroy?: boolean | Error): void;
}

export interface SqlPool extends SqlExecutor {
  connect(): Promise<SqlConnection>;
  end(): Promise<void>;
  /** Connections open, idle, and callers waiting for one (`pg.Pool` has them; for pool saturation metrics). */
  readonly totalCount?: number;
  readonly idleCount?: number;
  readonly waitingCount?: number;
  readonly options?: { readonly max?: number };
}
