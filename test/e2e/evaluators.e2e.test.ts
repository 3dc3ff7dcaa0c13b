import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { account, startHarness, userWithKey, type Harness } from './harness.js';
import { evaluatorGatewayPlugins, runEvaluatorScenario } from './evaluators-scenario.js';

let h: Harness;
const v1 = `/v1/accounts/${account}`;

beforeAll(async () => {
  h = await startHarness({ plugins: evaluatorGatewayPlugins(memoryStorage()) });
});
afterAll(async () => h.close());

describe('evaluators over HTTP', () => {
  it('create, build, get, list, update, delete; the runner scores with what the API answers', async () => {
    await runEvaluatorScenario(h, 'mem');
  }, 60_000);

  it('roles and accounts: an inference user cannot read evaluators, another account is 403', async () => {
    const key = await userWithKey(h, 'infer', 'inference-user');
    expect((await h.call('GET', `${v1}/evaluators`, { key })).status).toBe(403);
    expect((await h.call('GET', '/v1/accounts/other/evaluators')).status).toBe(403);
    expect((await h.call('GET', `${v1}/evaluators`, { key: null })).status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await h.call<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json');
    const paths = Object.keys(doc.body.paths ?? {}).filter((p) => p.includes('/evaluators'));
    expect(paths.length, JSON.stringify(Object.keys(doc.body.paths ?? {}).slice(0, 5))).toBeGreaterThanOrEqual(2);
  });
});
