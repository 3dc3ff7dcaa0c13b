import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { inputRulesSuite } from './input-rules.js';

inputRulesSuite('memory', async () => ({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 })] }));
