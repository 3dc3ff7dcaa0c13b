import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { webhooks } from '@berth/plugin-webhooks';
import { fuzzSuite } from './fuzz-suite.js';

fuzzSuite('memory', async () => ({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), gpuxRuntime(), webhooks()] }));
