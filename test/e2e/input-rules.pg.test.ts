import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { inputRulesSuite } from './input-rules.js';
import { postgresTestStorage } from './postgres.js';

/** The input rules on PostgreSQL (DATABASE_URL, or embedded PGlite without it). */
inputRulesSuite('postgres', async () => {
  const storage = await postgresTestStorage('input');
  return { plugins: [storage.plugin, apiKeyAuth({ cacheTtlMs: 0 })], cleanup: () => storage.cleanup() };
});
