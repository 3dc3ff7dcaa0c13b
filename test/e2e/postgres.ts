import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { GatewayPlugin } from '@berth/core';
import { pglitePool, postgresStorage } from '@berth/plugin-storage-postgres';

/** PostgreSQL storage for a suite run over HTTP: a fresh schema on DATABASE_URL, else an embedded PGlite. */
export interface PostgresTestStorage {
  readonly kind: 'postgres' | 'pglite';
  readonly plugin: GatewayPlugin;
  /** Drops the schema (server) or closes the database (PGlite); call after the gateway stopped. */
  cleanup(): Promise<void>;
}

/** One fresh schema that several gateways (one after another, or side by side) share. */
export interface PostgresTestSchema {
  readonly kind: 'postgres' | 'pglite';
  /** A new storage plugin on the schema, for one gateway. */
  plugin(): GatewayPlugin;
  /** Drops the schema (server) or closes the database (PGlite); call after every gateway stopped. */
  cleanup(): Promise<void>;
}

export async function postgresTestSchema(label: string): Promise<PostgresTestSchema> {
  const schema = `berth_${label}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const databaseUrl = process.env.DATABASE_URL || undefined;
  if (databaseUrl === undefined) {
    const db = await PGlite.create();
    return { kind: 'pglite', plugin: () => postgresStorage({ pool: pglitePool(db), schema }), cleanup: () => db.close() };
  }
  return {
    kind: 'postgres',
    plugin: () => postgresStorage({ connectionString: databaseUrl, schema }),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

export async function postgresTestStorage(label: string): Promise<PostgresTestStorage> {
  const shared = await postgresTestSchema(label);
  return { kind: shared.kind, plugin: shared.plugin(), cleanup: () => shared.cleanup() };
}
