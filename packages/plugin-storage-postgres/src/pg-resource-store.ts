import { aborted, alreadyExists, notFound, type JsonObject, type ListQuery, type ListResult, type RequestContext, type StoredResource, type TransactionResourceStore } from '@berth/core';
import { SqlParams, descendingHeadRanges, filterToSql, keysetToSql, orderByToSql } from './filter-to-sql.js';
import { json, parseJson, run, text, type ExecutorSource, type Tables } from './pg-support.js';
import type { SqlExecutor } from './sql-client.js';

/** Etags are version numbers; anything else can never match (and must not reach a bigint cast). */
function etagVersion(etag: string): string | undefined {
  return /^[0-9]{1,18}$/.test(etag) ? etag : undefined;
}

function splitResourceName(name: string): { parent: string; collection: string } {
  const segments = name.split('/');
  if (segments.length < 2) return { parent: '', collection: '' };
  return { parent: segments.slice(0, -2).join('/'), collection: segments[segments.length - 2] ?? '' };
}

export class PgResourceStore implements TransactionResourceStore {
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

  /** Reads and row-locks `name` (`SELECT … FOR UPDATE`); the lock lasts until the transaction ends. */
  async getForUpdate(_ctx: RequestContext, name: string): Promise<StoredResource | undefined> {
    const { rows } = await run(this.db(), `SELECT data::text AS data, version::text AS version FROM ${this.t.resources} WHERE name = $1 FOR UPDATE`, [name]);
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
