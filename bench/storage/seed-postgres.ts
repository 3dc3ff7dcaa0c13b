import type pg from 'pg';
import { migrate } from '@berth/plugin-storage-postgres';
import { BENCH_ACCOUNT, deploymentBodies } from './deployment-bodies.js';

const BATCH = 2000;

/**
 * Brings `schema` to `rows` benchmark deployments: migrates, and (re)inserts in batches of 2,000 rows
 * with one `INSERT … SELECT FROM unnest(…)` each, the row layout PostgresStorage writes (etag from its
 * sequence). Skipped when the schema already holds exactly `rows` deployments and `reseed` is false.
 * Ends with ANALYZE so the planner knows the data. Returns the seconds spent inserting (0 if reused).
 */
export async function seedPostgres(pool: pg.Pool, schema: string, rows: number, reseed: boolean): Promise<number> {
  await migrate(pool, { schema });
  const table = `"${schema}".berth_resources`;
  const parent = `accounts/${BENCH_ACCOUNT}`;
  const existing = Number((await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE parent = $1 AND collection = 'deployments'`, [parent])).rows[0]?.n);
  if (existing === rows && !reseed) return 0;
  const started = performance.now();
  await pool.query(`DELETE FROM ${table} WHERE parent = $1 AND collection = 'deployments'`, [parent]);
  let names: string[] = [];
  let bodies: string[] = [];
  const flush = async () => {
    if (names.length === 0) return;
    await pool.query(
      `INSERT INTO ${table} (name, parent, collection, data, version)
       SELECT n, $3, 'deployments', d::jsonb, nextval('"${schema}".berth_resource_version_seq') FROM unnest($1::text[], $2::text[]) AS t(n, d)`,
      [names, bodies, parent],
    );
    names = [];
    bodies = [];
  };
  for (const row of deploymentBodies(rows)) {
    names.push(row.name);
    bodies.push(JSON.stringify(row.data));
    if (names.length === BATCH) await flush();
  }
  await flush();
  await pool.query(`VACUUM ANALYZE ${table}`);
  return (performance.now() - started) / 1000;
}
