import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, parseFilter, parseOrderBy, systemContext } from '@berth/core';
import { contractDeclarations } from '@berth/core/testing';
import { MigrationError, migrate, migrations, type Migration } from './migrations.js';
import { PostgresStorage } from './postgres-storage.js';
import { postgresStorage } from './postgres-storage-plugin.js';
import type { SqlPool } from './sql-client.js';
import { boundStorage, lifecycle, openTestDatabase, randomSchema, startOnFreshSchema, type TestDatabase } from './test-support.js';

const ctx = systemContext('test');
let database: TestDatabase;
const schemas: string[] = [];

beforeAll(async () => {
  database = await openTestDatabase();
});

afterAll(async () => {
  for (const schema of schemas) await database.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await database.close();
});

function freshSchema(): string {
  const schema = randomSchema();
  schemas.push(schema);
  return schema;
}

describe('migrate', () => {
  it('applies every migration exactly once when instances start together', async () => {
    const schema = freshSchema();
    const runs = await Promise.all(Array.from({ length: 4 }, () => migrate(database.pool, { schema })));
    expect(runs.flat().sort((a, b) => a - b)).toEqual(migrations.map((m) => m.version));
    const { rows } = await database.pool.query(`SELECT version FROM "${schema}".berth_migrations ORDER BY version`);
    expect(rows.map((row) => Number(row.version))).toEqual(migrations.map((m) => m.version));
    expect(await migrate(database.pool, { schema })).toEqual([]);
  });

  it('refuses a destructive migration unless allowed, and rolls back the whole run', async () => {
    const schema = freshSchema();
    const destructive: Migration = {
      version: 1000,
      name: 'drop kv expiry index',
      destructive: true,
      statements: (s) => [`DROP INDEX ${s}.berth_kv_expires_idx`],
    };
    const additive: Migration = { version: 999, name: 'add a table', statements: (s) => [`CREATE TABLE ${s}.berth_extra (id integer)`] };
    await migrate(database.pool, { schema });
    const list = [...migrations, additive, destructive];
    await expect(migrate(database.pool, { schema, migrations: list })).rejects.toBeInstanceOf(MigrationError);
    const before = await database.pool.query(`SELECT max(version) AS v FROM "${schema}".berth_migrations`);
    expect(Number(before.rows[0]?.v)).toBe(migrations[migrations.length - 1]?.version);
    expect(await migrate(database.pool, { schema, migrations: list, allowDestructive: true })).toEqual([999, 1000]);
  });

  it('rejects a schema name that is not a plain identifier', async () => {
    await expect(migrate(database.pool, { schema: 'x"; DROP SCHEMA public; --' })).rejects.toBeInstanceOf(MigrationError);
  });
});

describe('indexes', () => {
  /** Records the statements a storage sends, to EXPLAIN them afterwards. */
  function recording(pool: SqlPool): { pool: SqlPool; statements: { text: string; params: unknown[] }[] } {
    const statements: { text: string; params: unknown[] }[] = [];
    return {
      statements,
      pool: {
        query: (text, params) => {
          statements.push({ text, params: params ?? [] });
          return pool.query(text, params);
        },
        connect: () => pool.connect(),
        end: () => pool.end(),
      },
    };
  }

  async function plan(text: string, params: unknown[]): Promise<string> {
    const client = await database.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query(`EXPLAIN ${text}`, params);
      return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }
  }

  it('serves the default order and the state filter from the key-column indexes', async () => {
    const schema = freshSchema();
    await migrate(database.pool, { schema });
    const rec = recording(database.pool);
    const storage = new PostgresStorage({ schema });
    storage.attach(rec.pool);
    const orderBy = parseOrderBy('', contractDeclarations, 'create_time');
    await storage.resources.list(ctx, { parent: 'accounts/a', collection: 'models', orderBy, pageSize: 10 });
    await storage.resources.list(ctx, {
      parent: 'accounts/a',
      collection: 'models',
      orderBy,
      pageSize: 10,
      after: ['2024-01-01T00:00:00.000Z', 'accounts/a/models/x'],
    });
    const filter = parseFilter('state = READY', contractDeclarations);
    await storage.resources.list(ctx, { parent: 'accounts/a', collection: 'models', orderBy: parseOrderBy('name', contractDeclarations, ''), pageSize: 10, ...(filter ? { filter } : {}) });
    const lists = rec.statements.filter((s) => s.text.includes('LIMIT'));
    expect(lists).toHaveLength(3);
    expect(await plan(lists[0]!.text, lists[0]!.params)).toContain('berth_resources_time_key_idx');
    expect(await plan(lists[1]!.text, lists[1]!.params)).toContain('berth_resources_time_key_idx');
    expect(await plan(lists[2]!.text, lists[2]!.params)).toMatch(/berth_resources_(model_)?state_time_key_idx/);
  });
});

describe('availability', () => {
  it('is UNAVAILABLE before start and after stop', async () => {
    const started = await startOnFreshSchema(database);
    schemas.push(started.schema);
    await started.storage.kv.set(ctx, 'k', 1);
    await started.cleanup();
    await expect(started.storage.kv.get(ctx, 'k')).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    const unstarted = boundStorage(postgresStorage({ pool: database.pool }));
    await expect(unstarted.resources.get(ctx, 'accounts/a/models/m')).rejects.toMatchObject({ code: Code.UNAVAILABLE });
  });

  it('maps a refused connection to UNAVAILABLE', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
    const storage = new PostgresStorage({ schema: 'public' });
    storage.attach(pool);
    try {
      await expect(storage.resources.get(ctx, 'accounts/a/models/m')).rejects.toMatchObject({ code: Code.UNAVAILABLE });
      await expect(storage.transaction(ctx, async () => 1)).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    } finally {
      await pool.end();
    }
  });

  it('fails start with a clear error when the database is unreachable', async () => {
    const plugin = postgresStorage({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
    await expect(plugin.start?.(lifecycle)).rejects.toThrow();
  });
});
