import type { JsonValue, KeyValueStore, RequestContext } from '@berth/core';
import { parseJson, run, json, type ExecutorSource, type Tables } from './pg-support.js';

const LIVE = `(expires_at IS NULL OR expires_at > clock_timestamp())`;

/** Every this many writes with a ttl, expired rows are swept (bounded), so the table does not keep them forever. */
const KV_SWEEP_EVERY = 256;
const KV_SWEEP_BATCH = 1000;

export class PgKeyValueStore implements KeyValueStore {
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
