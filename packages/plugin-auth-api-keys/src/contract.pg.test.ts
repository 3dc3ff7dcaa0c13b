import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { describeApiKeyManagerContract, describeAuthenticatorContract } from '@berth/core/testing';
import { pglitePool, postgresStorage } from '@berth/plugin-storage-postgres';
import { contractStaleBoundMs, issueApiKey, twoApiKeyInstances } from './test-fixtures.js';

/**
 * The contract suites on PostgreSQL: two gateways on one fresh schema. With DATABASE_URL each gateway
 * opens its own pool (as two processes would); without it both share one embedded PGlite database.
 */
const databaseUrl = process.env.DATABASE_URL || undefined;

const onPostgres = async () => {
  const schema = `berth_auth_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  if (databaseUrl === undefined) {
    const db = await PGlite.create();
    const pool = pglitePool(db);
    return twoApiKeyInstances(() => postgresStorage({ pool, schema }), () => db.close());
  }
  const dropSchema = async () => {
    const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await admin.end();
    }
  };
  return twoApiKeyInstances(() => postgresStorage({ connectionString: databaseUrl, schema, maxConnections: 8 }), dropSchema);
};

const label = databaseUrl === undefined ? 'API keys on PostgreSQL (PGlite)' : 'API keys on PostgreSQL';
describeAuthenticatorContract(label, onPostgres, { issue: issueApiKey, staleBoundMs: contractStaleBoundMs });
describeApiKeyManagerContract(label, onPostgres);
