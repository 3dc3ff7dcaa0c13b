import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { webhooks } from '@berth/plugin-webhooks';
import { postgresTestStorage } from '../e2e/postgres.js';
import { fuzzSuite } from './fuzz-suite.js';

/** The fuzz suite on PostgreSQL (DATABASE_URL, or embedded PGlite without it). */
fuzzSuite('postgres', async () => {
  const storage = await postgresTestStorage('fuzz');
  return { plugins: [storage.plugin, apiKeyAuth({ cacheTtlMs: 0 }), gpuxRuntime(), webhooks()], cleanup: () => storage.cleanup() };
});
