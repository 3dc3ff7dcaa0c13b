import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext, type Storage } from '@berth/core';
import { PostgresStorage, migrate } from '@berth/plugin-storage-postgres';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';

/**
 * Two gateway processes on one PostgreSQL schema: what one writes the other reads at once, and when
 * one is SIGKILLed while it holds job leases the other finishes every job — none lost, none done
 * twice — counted in the database. Needs a real server: skipped without DATABASE_URL.
 */
const databaseUrl = process.env.DATABASE_URL || undefined;

const JOBS = 40;
const JOB_MS = 300;
const LEASE_MS = 3000;
const apiKey = 'multi-instance-admin-key-0123456789';
const ctx = systemContext('multi-instance-test');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.skipIf(databaseUrl === undefined)('two gateway processes on one PostgreSQL database', () => {
  const schema = `berth_multi_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  let pool: pg.Pool;
  let storage: Storage;
  let a: GatewayProcess;
  let b: GatewayProcess;

  const call = async (target: GatewayProcess, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${target.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const count = async (sql: string, params: unknown[] = []): Promise<number> => Number((await pool.query(sql, params)).rows[0]?.n ?? 0);

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    const env = { DATABASE_URL: databaseUrl, BERTH_DATABASE_SCHEMA: schema, BERTH_API_KEY: apiKey, BERTH_ACCOUNT_ID: 'acme',
      BERTH_WORKER_CONCURRENCY: '4', BERTH_WORKER_POLL_INTERVAL_MS: '100', PROBE_JOB_MS: String(JOB_MS), PROBE_LEASE_MS: String(LEASE_MS) };
    // Started together: migrations and the bootstrap admin must each happen once.
    [a, b] = await Promise.all([startGatewayProcess({ ...env, BERTH_WORKER_ID: 'instance-a' }), startGatewayProcess({ ...env, BERTH_WORKER_ID: 'instance-b' })]);
    await migrate(pool, { schema });
    const direct = new PostgresStorage({ schema });
    direct.attach(pool);
    storage = direct;
  }, 45_000);

  afterAll(async () => {
    await Promise.all([a?.kill('SIGTERM'), b?.kill('SIGTERM')]);
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.end();
  });

  it('reads on one instance what the other just wrote, with the bootstrap admin created once', async () => {
    expect(await count(`SELECT count(*)::int AS n FROM "${schema}".berth_resources WHERE collection = 'users'`)).toBe(1);
    const created = await call(a, 'POST', '/v1/accounts/acme/models', {
      modelId: 'shared-model',
      model: {
        kind: 'HUB_BASE_MODEL',
        displayName: 'Written on A',
        baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const read = await call(b, 'GET', '/v1/accounts/acme/models/shared-model');
    expect(read).toMatchObject({ status: 200, body: { name: 'accounts/acme/models/shared-model', displayName: 'Written on A' } });
    const updated = await call(b, 'PATCH', '/v1/accounts/acme/models/shared-model', { displayName: 'Changed on B' });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect((await call(a, 'GET', '/v1/accounts/acme/models/shared-model')).body).toMatchObject({ displayName: 'Changed on B' });
  });

  it('finishes every job once after one instance is SIGKILLed while holding leases', async () => {
    const jobs = await Promise.all(Array.from({ length: JOBS }, (_, i) => storage.queue.enqueue(ctx, { queue: 'probe', payload: { i } })));
    const jobTable = `"${schema}".berth_jobs`;
    // The probe jobs only: each gateway also schedules its own maintenance (the hourly blob sweep, not due yet).
    const probeJobs = `${jobTable} WHERE queue = 'probe'`;
    // Kill A only once it holds leases on running jobs (and some work is already done).
    const deadline = Date.now() + 15_000;
    while ((await count(`SELECT count(*)::int AS n FROM ${jobTable} WHERE state = 'leased' AND worker_id = 'instance-a'`)) < 2 ||
      (await count(`SELECT count(*)::int AS n FROM ${probeJobs} AND state = 'completed'`)) < 4) {
      if (Date.now() > deadline) throw new Error(`instance A never held leases:\n${a.log()}`);
      await sleep(20);
    }
    await a.kill('SIGKILL');
    const killedAt = Date.now();
    const orphaned = await count(`SELECT count(*)::int AS n FROM ${jobTable} WHERE state = 'leased' AND worker_id = 'instance-a'`);
    expect(orphaned).toBeGreaterThan(0);

    // B alone must finish everything within two lease periods of the kill.
    while ((await count(`SELECT count(*)::int AS n FROM ${probeJobs} AND state = 'completed'`)) < JOBS) {
      if (Date.now() - killedAt > 2 * LEASE_MS) break;
      await sleep(50);
    }
    const elapsed = Date.now() - killedAt;
    const states = (await pool.query(`SELECT state, count(*)::int AS n FROM ${probeJobs} GROUP BY state ORDER BY state`)).rows;
    expect(states, `after ${elapsed} ms:\n${b.log()}`).toEqual([{ state: 'completed', n: JOBS }]);
    expect(elapsed).toBeLessThanOrEqual(2 * LEASE_MS + 500);

    // Effects, counted in the database: exactly one per job, and it is the completing attempt's.
    const effects = (
      await pool.query(
        `SELECT data->>'jobId' AS job, count(*)::int AS n, max((data->>'attempt')::int) AS attempt FROM "${schema}".berth_resources
         WHERE parent = 'accounts/probe' AND collection = 'effects' GROUP BY 1`,
      )
    ).rows as Array<{ job: string; n: number; attempt: number }>;
    expect(effects).toHaveLength(JOBS);
    expect(effects.filter((e) => e.n !== 1)).toEqual([]);
    const attempts = new Map((await pool.query(`SELECT id, attempt FROM ${jobTable}`)).rows.map((r) => [String(r.id), Number(r.attempt)]));
    for (const effect of effects) expect(effect.attempt).toBe(attempts.get(effect.job));
    expect(new Set(effects.map((e) => e.job))).toEqual(new Set(jobs.map((j) => j.id)));
    // The jobs A held were re-run by B on a later attempt.
    expect([...attempts.values()].filter((attempt) => attempt > 1).length).toBeGreaterThanOrEqual(orphaned);
  }, 40_000);
});
