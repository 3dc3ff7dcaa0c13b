import pg from 'pg';
import { describe } from 'vitest';
import { describeApiKeyManagerContract, describeAuthenticatorContract } from '@berth/core/testing';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import { contractStaleBoundMs, issueApiKey, twoApiKeyInstances } from './test-fixtures.js';

/**
 * The contract suites on PostgreSQL: two gateways, each with its own pool, on one fresh schema (as two
 * processes would be). Needs a server: skipped without DATABASE_URL.
 */
const databaseUrl = process.env.DATABASE_URL || undefined;

const onPostgres = async () => {
  const schema = `berth_auth_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const dropSchema = async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await pool.end();
    }
  };
  return twoApiKeyInstances(() => postgresStorage({ connectionString: databaseUrl!, schema, maxConnections: 8 }), dropSchema);
};

describe.skipIf(databaseUrl === undefined)('API keys on PostgreSQL', () => {
  describeAuthenticatorContract('API keys on PostgreSQL', onPostgres, { issue: issueApiKey, staleBoundMs: contractStaleBoundMs });
  describeApiKeyManagerContract('API keys on PostgreSQL', onPostgres);
});
