import pg from 'pg';
import { describe, it } from 'vitest';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import { inputRulesSuite } from './input-rules.js';

/** The input rules on PostgreSQL (needs DATABASE_URL; skipped without it). */
const databaseUrl = process.env.DATABASE_URL || undefined;

if (databaseUrl === undefined) {
  describe.skip('input rules (postgres)', () => it('needs DATABASE_URL', () => {}));
} else {
  inputRulesSuite('postgres', async () => {
    const schema = `berth_input_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    return {
      plugins: [postgresStorage({ connectionString: databaseUrl, schema }), apiKeyAuth({ cacheTtlMs: 0 })],
      cleanup: async () => {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    };
  });
}
