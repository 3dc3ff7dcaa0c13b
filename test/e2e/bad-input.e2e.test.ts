import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayRoutes } from '@berth/plugin-transport-fastify';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { account, baseModelBody, startHarness, type Harness } from './harness.js';

/**
 * Bad input never gets a 5xx: every route of the table, with bodies of every JSON type, malformed
 * JSON, wrong field types, unknown fields, and garbage query parameters. Deterministic (seeded) and
 * bounded: a few thousand requests on loopback.
 */
let h: Harness;
const v1 = `/v1/accounts/${account}`;

beforeAll(async () => {
  h = await startHarness({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), gpuxRuntime()] });
  await h.call('POST', `${v1}/models`, { body: { modelId: 'm', model: baseModelBody() } });
  await h.call('POST', `${v1}/datasets`, { body: { datasetId: 'ds', dataset: { format: 'CHAT' } } });
  await h.call('POST', `${v1}/deploymentShapes?deploymentShapeId=s`, { body: { baseModel: `accounts/${account}/models/m` } });
  await h.call('POST', `${v1}/deployments?deploymentId=d`, { body: { baseModel: `accounts/${account}/models/m` } });
});
afterAll(async () => h.close());

let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const fieldNames = ['name', 'displayName', 'kind', 'baseModel', 'state', 'replicaCount', 'minReplicaCount', 'maxReplicaCount', 'acceleratorType', 'precision', 'peftDetails', 'baseModelDetails', 'role', 'email', 'dataset', 'datasetId', 'model', 'modelId', 'apiKey', 'filenameToSize', 'autoscalingPolicy', 'placement', 'trainingConfig', 'inputDatasetId', 'evaluator', 'chunkSize', 'messages', 'prompt', 'stream', 'max_tokens', 'temperature', 'tools', '__proto__', 'constructor', 'x'.repeat(300)];
const scalars: unknown[] = [null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 31) - 1, '', 'x', 'ü'.repeat(70), '9'.repeat(30), 'accounts/other/models/m', 'accounts/acme/models/../../x', '1800s', '-5s', 'READY', 'HUB_BASE_MODEL', 'GPUX_H100_80GB', 'FP4', '2026-02-30T00:00:00Z', [], {}, [1, 'a', null]];

function randomValue(depth: number): unknown {
  if (depth > 3 || random() < 0.6) return pick(scalars);
  if (random() < 0.5) return Array.from({ length: Math.floor(random() * 3) }, () => randomValue(depth + 1));
  return randomObject(depth + 1);
}
function randomObject(depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 5); i > 0; i -= 1) out[pick(fieldNames)] = randomValue(depth);
  return out;
}

const rawBodies = ['', '{', 'null', '[]', '"text"', '12', 'true', '{"a":}', '{"model":{"kind":5}}', '\u0000', '{"__proto__":{"polluted":true}}'];
const queryValues = ['', '-1', 'abc', '0', '99999999999', 'true', 'maybe', '"', '(((', 'state = ', 'a.b.c.d:*', 'NOT', '*', 'name desc desc', '%ZZ', 'x'.repeat(3000)];
const queryNames = ['pageSize', 'pageToken', 'filter', 'orderBy', 'readMask', 'updateMask', 'showDeleted', 'hard', 'ignoreChecks', 'validateOnly', 'deploymentId', 'userId', 'skipShapeValidation'];

function concretePath(path: string): string {
  return path
    .replace('{account_id}', pick([account, account, 'other', 'BAD!', 'a'.repeat(70)]))
    .replace('{model_id}', pick(['m', 'missing', 'UPPER']))
    .replace('{dataset_id}', pick(['ds', 'missing']))
    .replace('{user_id}', pick(['admin', 'missing']))
    .replace('{deployment_shape_id}', pick(['s', 'missing']))
    .replace('{deployment_id}', pick(['d', 'missing', 'd:bogus']))
    .replace(/\{[a-z_]+_id\}/g, () => pick(['x', 'missing', '-bad-']));
}

describe('bad input never gets a 5xx', () => {
  it('over every route, with random bodies and queries', { timeout: 120_000 }, async () => {
    const routes = gatewayRoutes(h.gateway);
    const failures: string[] = [];
    for (const route of routes) {
      for (let i = 0; i < 25; i += 1) {
        const path = concretePath(route.path);
        const query = Array.from({ length: Math.floor(random() * 3) }, () => `${pick(queryNames)}=${encodeURIComponent(pick(queryValues))}`).join('&');
        const url = `${path}${query ? `?${query}` : ''}`;
        const useRaw = random() < 0.3;
        const options = useRaw ? { raw: pick(rawBodies) } : { body: random() < 0.2 ? randomValue(0) : randomObject(0) };
        const response = await h.call(route.method, url, route.method === 'GET' || route.method === 'DELETE' ? {} : options);
        if (response.status >= 500) failures.push(`${route.method} ${url} ${JSON.stringify(options).slice(0, 200)} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
      }
    }
    for (const path of ['/inference/v1/chat/completions', '/inference/v1/completions']) {
      for (let i = 0; i < 40; i += 1) {
        const useRaw = random() < 0.3;
        const body = useRaw ? { raw: pick(rawBodies) } : { body: random() < 0.5 ? { ...randomObject(0), model: pick([`accounts/${account}/models/m`, 'missing', 5, null]) } : randomValue(0) };
        const response = await h.call('POST', path, body);
        if (response.status >= 500 && response.status !== 503) failures.push(`POST ${path} ${JSON.stringify(body).slice(0, 200)} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
