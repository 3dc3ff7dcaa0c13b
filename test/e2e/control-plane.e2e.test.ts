import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyManagerToken, coreServicesToken, storageToken, systemContext } from '@berth/core';
import { account, adminKey, baseModelBody, startHarness, userWithKey, type Harness } from './harness.js';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';

let h: Harness;
const v1 = `/v1/accounts/${account}`;

beforeAll(async () => {
  h = await startHarness();
  await h.call('POST', `${v1}/models`, { body: { modelId: 'llama-8b', model: baseModelBody() } });
});
afterAll(async () => h.close());

describe('spec endpoints 1–10 over HTTP', () => {
  it('1 GET model answers the model', async () => {
    const r = await h.call('GET', `${v1}/models/llama-8b`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: `${v1.slice(4)}/models/llama-8b`,
      kind: 'HUB_BASE_MODEL',
      state: 'READY',
      baseModelDetails: { parameterCount: '8000000000', worldSize: 1 },
    });
    expect(typeof r.body.createTime).toBe('string');
    const masked = await h.call('GET', `${v1}/models/llama-8b?readMask=displayName`);
    expect(Object.keys(masked.body).sort()).toEqual(['displayName', 'name']);
  });

  it('2 POST dataset and 3 GET dataset', async () => {
    const created = await h.call('POST', `${v1}/datasets`, {
      body: { datasetId: 'chats', dataset: { displayName: 'Chats', format: 'CHAT', exampleCount: '1200' } },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: `accounts/${account}/datasets/chats`, format: 'CHAT', exampleCount: '1200' });
    const got = await h.call('GET', `${v1}/datasets/chats`);
    expect(got.status).toBe(200);
    expect(got.body.name).toBe(`accounts/${account}/datasets/chats`);
    const numberCount = await h.call('POST', `${v1}/datasets`, { body: { datasetId: 'bad', dataset: { exampleCount: 5 } } });
    expect(numberCount.status).toBe(400);
  });

  it('4 PATCH user requires the body name to equal the path', async () => {
    await userWithKey(h, 'bob', 'user');
    const ok = await h.call('PATCH', `${v1}/users/bob`, { body: { name: `accounts/${account}/users/bob`, displayName: 'Bob B.' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ displayName: 'Bob B.', role: 'user' });
    const missing = await h.call('PATCH', `${v1}/users/bob`, { body: { displayName: 'x' } });
    expect(missing.status).toBe(400);
    const other = await h.call('PATCH', `${v1}/users/bob`, { body: { name: `accounts/${account}/users/admin`, displayName: 'x' } });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe(3);
  });

  it('5 GET deployment shape with defaults filled in', async () => {
    const created = await h.call('POST', `${v1}/deploymentShapes?deploymentShapeId=fast`, {
      body: { baseModel: `accounts/${account}/models/llama-8b`, presetType: 'FAST' },
    });
    expect(created.status).toBe(200);
    const got = await h.call('GET', `${v1}/deploymentShapes/fast`);
    expect(got.body).toMatchObject({ acceleratorType: 'GPUX_A100_80GB', modelType: 'llama', parameterCount: '8000000000' });
    expect(got.body.acceleratorCount).toBeGreaterThanOrEqual(1);
  });

  it('6 GET reinforcement fine-tuning job and 7 GET / 9 list batch inference jobs', async () => {
    const judge = await h.call('POST', `${v1}/evaluators`, { body: { evaluatorId: 'judge', evaluator: { criteria: [{ name: 'exact', type: 'EXACT_MATCH', exactMatch: {} }] } } });
    expect(judge.status, JSON.stringify(judge.body)).toBe(200);
    const rft = await h.call('POST', `${v1}/reinforcementFineTuningJobs?reinforcementFineTuningJobId=rft1`, {
      body: { dataset: `accounts/${account}/datasets/chats`, evaluator: `accounts/${account}/evaluators/judge`, trainingConfig: { baseModel: `accounts/${account}/models/llama-8b` } },
    });
    expect(rft.status).toBe(200);
    const gotRft = await h.call('GET', `${v1}/reinforcementFineTuningJobs/rft1`);
    expect(gotRft.body).toMatchObject({ state: 'JOB_STATE_CREATING', chunkSize: 200, nodeCount: 1 });
    const tracked = await h.call('POST', `${v1}/reinforcementFineTuningJobs?reinforcementFineTuningJobId=rft2`, {
      body: { dataset: `accounts/${account}/datasets/chats`, evaluator: `accounts/${account}/evaluators/judge`, trainingConfig: { baseModel: `accounts/${account}/models/llama-8b` }, trackerConfig: { enabled: true, apiKey: 'tracker-secret-abcd' } },
    });
    expect(tracked.body.trackerConfig).toEqual({ enabled: true, apiKey: '****abcd' });
    const listed = await h.call('GET', `${v1}/reinforcementFineTuningJobs`);
    expect(JSON.stringify(listed.body)).not.toContain('tracker-secret');

    for (const id of ['b1', 'b2', 'b3']) {
      const job = await h.call('POST', `${v1}/batchInferenceJobs?batchInferenceJobId=${id}`, {
        body: { model: `accounts/${account}/models/llama-8b`, inputDatasetId: `accounts/${account}/datasets/chats` },
      });
      expect(job.status).toBe(200);
    }
    const got = await h.call('GET', `${v1}/batchInferenceJobs/b2`);
    expect(got.body).toMatchObject({ name: `accounts/${account}/batchInferenceJobs/b2`, state: 'JOB_STATE_CREATING' });
    const page1 = await h.call<{ batchInferenceJobs: Array<{ name: string }>; nextPageToken?: string; totalSize: number }>('GET', `${v1}/batchInferenceJobs?pageSize=2`);
    expect(page1.body.batchInferenceJobs).toHaveLength(2);
    expect(page1.body.totalSize).toBe(3);
    const page2 = await h.call<{ batchInferenceJobs: Array<{ name: string }>; nextPageToken?: string }>('GET', `${v1}/batchInferenceJobs?pageSize=2&pageToken=${page1.body.nextPageToken}`);
    expect(page2.body.batchInferenceJobs).toHaveLength(1);
    expect(page2.body.nextPageToken).toBeUndefined();
    const missingDataset = await h.call('POST', `${v1}/batchInferenceJobs`, { body: { model: `accounts/${account}/models/llama-8b`, inputDatasetId: `accounts/${account}/datasets/none` } });
    expect(missingDataset.status).toBe(400);
  });

  it('8 list deployments: filter, orderBy, pages, totalSize, showDeleted; 10 DELETE soft and hard', async () => {
    for (const [id, type] of [['d-a', 'GPUX_H100_80GB'], ['d-b', 'GPUX_A100_80GB'], ['d-c', 'GPUX_H100_80GB'], ['d-d', 'GPUY_MI300X_192GB']] as const) {
      const r = await h.call('POST', `${v1}/deployments?deploymentId=${id}`, { body: { baseModel: `accounts/${account}/models/llama-8b`, acceleratorType: type, displayName: id } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const filtered = await h.call<{ deployments: Array<{ name: string }>; totalSize: number }>(
      'GET',
      `${v1}/deployments?filter=${encodeURIComponent('accelerator_type = GPUX_H100_80GB AND state = CREATING')}&orderBy=${encodeURIComponent('display_name desc')}`,
    );
    expect(filtered.status).toBe(200);
    expect(filtered.body.deployments.map((d) => d.name.split('/').pop())).toEqual(['d-c', 'd-a']);
    expect(filtered.body.totalSize).toBe(2);

    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await h.call<{ deployments: Array<{ name: string }>; nextPageToken?: string; totalSize: number }>(
        'GET', `${v1}/deployments?pageSize=1&orderBy=display_name${token ? `&pageToken=${token}` : ''}`,
      );
      expect(page.body.totalSize).toBe(4);
      seen.push(...page.body.deployments.map((d) => d.name.split('/').pop()!));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toEqual(['d-a', 'd-b', 'd-c', 'd-d']);

    const soft = await h.call('DELETE', `${v1}/deployments/d-b`);
    expect(soft.status).toBe(200);
    expect(soft.body).toEqual({});
    const hidden = await h.call<{ deployments: Array<{ name: string }>; totalSize: number }>('GET', `${v1}/deployments`);
    expect(hidden.body.totalSize).toBe(3);
    const shown = await h.call<{ deployments: Array<{ name: string; state: string; deleteTime?: string }> }>('GET', `${v1}/deployments?showDeleted=true`);
    const deleted = shown.body.deployments.find((d) => d.name.endsWith('/d-b'));
    expect(deleted).toMatchObject({ state: 'DELETED' });
    expect(deleted?.deleteTime).toBeTruthy();
    const hard = await h.call('DELETE', `${v1}/deployments/d-b?hard=true`);
    expect(hard.status).toBe(200);
    expect((await h.call('GET', `${v1}/deployments/d-b`)).status).toBe(404);
    const badFlag = await h.call('DELETE', `${v1}/deployments/d-a?hard=yes`);
    expect(badFlag.status).toBe(400);
  });
});

describe('errors and limits over HTTP', () => {
  it('answers the control-plane error body with google.rpc numbers', async () => {
    const missing = await h.call('GET', `${v1}/models/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 5, message: expect.any(String), details: [] });
    const dup = await h.call('POST', `${v1}/models`, { body: { modelId: 'llama-8b', model: baseModelBody() } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe(6);
  });

  it('rejects unknown fields, wrong types, deep JSON, bad JSON and other media types with 400', async () => {
    const unknown = await h.call('POST', `${v1}/models`, { body: { modelId: 'u1', model: { ...baseModelBody(), colour: 'blue' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('colour');
    const nested = await h.call('POST', `${v1}/models`, { body: { modelId: 'u2', model: baseModelBody({ baseModelDetails: { parameterCount: '1', extra: 1 } }) } });
    expect(nested.status).toBe(400);
    expect(nested.body.message).toContain('baseModelDetails.extra');
    const wrongType = await h.call('POST', `${v1}/models`, { body: { modelId: 'u3', model: baseModelBody({ contextLength: '8192' }) } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toContain('contextLength');
    let deep: unknown = 1;
    for (let i = 0; i < 70; i += 1) deep = { a: deep };
    const tooDeep = await h.call('POST', `${v1}/models`, { body: { modelId: 'u4', model: { description: 'x', deep } } });
    expect(tooDeep.status).toBe(400);
    const badJson = await h.call('POST', `${v1}/models`, { raw: '{"modelId": ' });
    expect(badJson.status).toBe(400);
    expect(badJson.body.code).toBe(3);
    const text = await h.call('POST', `${v1}/models`, { raw: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    const array = await h.call('POST', `${v1}/models`, { body: [1, 2] });
    expect(array.status).toBe(400);
  });

  it('ignores output-only fields a client sends', async () => {
    const r = await h.call('POST', `${v1}/models`, { body: { modelId: 'ro', model: baseModelBody({ state: 'UPLOADING', createTime: '2001-01-01T00:00:00Z', calibrated: true }) } });
    expect(r.status).toBe(200);
    expect(r.body.state).toBe('READY');
    expect(r.body.createTime).not.toBe('2001-01-01T00:00:00Z');
    expect(r.body.calibrated).toBeUndefined();
  });

  it('enforces displayName and description limits and PEFT rank', async () => {
    expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'n63', model: baseModelBody({ displayName: 'x'.repeat(63) }) } })).status).toBe(200);
    expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'n64', model: baseModelBody({ displayName: 'x'.repeat(64) }) } })).status).toBe(400);
    expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'd999', model: baseModelBody({ description: 'x'.repeat(999) }) } })).status).toBe(200);
    expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'd1000', model: baseModelBody({ description: 'x'.repeat(1000) }) } })).status).toBe(400);
    const peft = (r: number) => ({ modelId: `peft-${r}`, model: { peftDetails: { baseModel: `accounts/${account}/models/llama-8b`, r, targetModules: ['q_proj'] } } });
    expect((await h.call('POST', `${v1}/models`, { body: peft(3) })).status).toBe(400);
    const ok = await h.call('POST', `${v1}/models`, { body: peft(64) });
    expect(ok.status).toBe(200);
    expect(ok.body.kind).toBe('HUB_PEFT_ADDON');
    expect((await h.call('POST', `${v1}/models`, { body: peft(65) })).status).toBe(400);
  });

  it('validates list parameters: pageSize, page tokens and filters', async () => {
    expect((await h.call('GET', `${v1}/deployments?pageSize=-1`)).status).toBe(400);
    expect((await h.call('GET', `${v1}/deployments?pageSize=ten`)).status).toBe(400);
    const big = await h.call<{ deployments: unknown[] }>('GET', `${v1}/deployments?pageSize=100000`);
    expect(big.status).toBe(200);
    const first = await h.call<{ nextPageToken: string }>('GET', `${v1}/deployments?pageSize=1`);
    const changed = await h.call('GET', `${v1}/deployments?pageSize=1&filter=${encodeURIComponent('state = READY')}&pageToken=${first.body.nextPageToken}`);
    expect(changed.status).toBe(400);
    const forged = await h.call('GET', `${v1}/deployments?pageSize=1&pageToken=${first.body.nextPageToken.slice(0, -3)}abc`);
    expect(forged.status).toBe(400);
    const badFilter = await h.call('GET', `${v1}/deployments?filter=${encodeURIComponent('state = READY AND (')}`);
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.message).toMatch(/position \d+/);
    const badField = await h.call('GET', `${v1}/deployments?filter=${encodeURIComponent('colour = "red"')}`);
    expect(badField.status).toBe(400);
    expect(badField.body.message).toContain('colour');
    const badOrder = await h.call('GET', `${v1}/deployments?orderBy=nope`);
    expect(badOrder.status).toBe(400);
    const badMask = await h.call('GET', `${v1}/models/llama-8b?readMask=nope`);
    expect(badMask.status).toBe(400);
  });

  it('never answers 5xx to malformed names and ids', async () => {
    for (const path of [`${v1}/models/UPPER`, `${v1}/models/${'a'.repeat(80)}`, '/v1/accounts/BAD!/models', `${v1}/models/x:frobnicate`, `${v1}/models/%00`]) {
      const r = await h.call('GET', path);
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.status, path).toBeLessThan(500);
    }
    const badId = await h.call('POST', `${v1}/deployments?deploymentId=Not_Valid`, { body: { baseModel: `accounts/${account}/models/llama-8b` } });
    expect(badId.status).toBe(400);
    // Without runtime plugins only the specification's accelerator types are accepted.
    const vendor = await h.call('POST', `${v1}/deployments?deploymentId=acme`, { body: { baseModel: `accounts/${account}/models/llama-8b`, acceleratorType: 'ACME_Z1_64GB' } });
    expect(vendor.status).toBe(400);
    expect(vendor.body.message).toContain('ACME_Z1_64GB');
    const lower = await h.call('POST', `${v1}/deployments?deploymentId=acme`, { body: { baseModel: `accounts/${account}/models/llama-8b`, acceleratorType: 'gpux_h100' } });
    expect(lower.status).toBe(400);
  });

  it('echoes and generates request ids', async () => {
    const r = await h.call('GET', `${v1}/models/llama-8b`, { headers: { 'x-request-id': 'req-123' } });
    expect(r.headers.get('x-request-id')).toBe('req-123');
    const g = await h.call('GET', `${v1}/models/llama-8b`);
    expect(g.headers.get('x-request-id')).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    const g2 = await h.call('GET', `${v1}/models/llama-8b`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(g2.headers.get('x-request-id')).not.toBe(g.headers.get('x-request-id'));
    expect(g2.headers.get('x-request-id')).not.toContain(' ');
  });
});

describe('authentication and roles over HTTP', () => {
  it('401 without or with a wrong key', async () => {
    const none = await h.call('GET', `${v1}/models/llama-8b`, { key: null });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe(16);
    const wrong = await h.call('GET', `${v1}/models/llama-8b`, { key: 'berth_wrong' });
    expect(wrong.status).toBe(401);
  });

  it('reads the key from "Bearer <key>" in any case and spacing, and nothing else', async () => {
    const withHeader = (authorization: string) => h.call('GET', `${v1}/models/llama-8b`, { key: null, headers: { authorization } });
    for (const accepted of [`Bearer ${adminKey}`, `bearer ${adminKey}`, `BEARER   ${adminKey}  `, `Bearer\t${adminKey}`]) {
      expect((await withHeader(accepted)).status, accepted).toBe(200);
    }
    for (const refused of [adminKey, `Basic ${adminKey}`, `Bearer`, `Bearer ${adminKey} extra`, `Bearer${adminKey}`, `xBearer ${adminKey}`]) {
      const answer = await withHeader(refused);
      expect(answer.status, refused).toBe(401);
      expect(answer.body.code).toBe(16);
    }
  });

  it('applies the role matrix', async () => {
    const inference = await userWithKey(h, 'infer', 'inference-user');
    const contributor = await userWithKey(h, 'contrib', 'contributor');
    const plain = await userWithKey(h, 'plain', 'user');
    expect((await h.call('GET', `${v1}/models/llama-8b`, { key: inference })).status).toBe(200);
    expect((await h.call('GET', `${v1}/deployments`, { key: inference })).status).toBe(200);
    expect((await h.call('GET', `${v1}/datasets`, { key: inference })).status).toBe(403);
    const infCreate = await h.call('POST', `${v1}/models`, { key: inference, body: { modelId: 'x1', model: baseModelBody() } });
    expect(infCreate.status).toBe(403);
    expect(infCreate.body.code).toBe(7);

    expect((await h.call('POST', `${v1}/models`, { key: contributor, body: { modelId: 'c1', model: baseModelBody() } })).status).toBe(200);
    expect((await h.call('PATCH', `${v1}/models/c1`, { key: contributor, body: { displayName: 'renamed' } })).status).toBe(200);
    expect((await h.call('DELETE', `${v1}/models/c1`, { key: contributor })).status).toBe(403);
    expect((await h.call('POST', `${v1}/users?userId=evil`, { key: contributor, body: { role: 'admin' } })).status).toBe(403);

    expect((await h.call('DELETE', `${v1}/models/c1`, { key: plain })).status).toBe(200);
    expect((await h.call('POST', `${v1}/users?userId=evil`, { key: plain, body: { role: 'admin' } })).status).toBe(403);
    expect((await h.call('GET', `${v1}/users/infer/apiKeys`, { key: plain })).status).toBe(403);
    expect((await h.call('GET', `${v1}/users/plain/apiKeys`, { key: plain })).status).toBe(200);
  });

  it('answers another account identically whether the resource exists or not', async () => {
    const services = h.gateway.resolve(coreServicesToken);
    const ctx = systemContext('test');
    await services.users.create(ctx, 'other', { role: 'admin' }, 'root');
    await services.models.create(ctx, 'other', baseModelBody(), 'secret-model');
    const otherKey = (await h.gateway.resolve(apiKeyManagerToken).create(ctx, 'accounts/other/users/root', {})).key;
    const exists = await h.call('GET', '/v1/accounts/other/models/secret-model');
    const absent = await h.call('GET', '/v1/accounts/other/models/no-such-model');
    expect(exists.status).toBe(403);
    expect(absent.status).toBe(exists.status);
    expect(absent.body.message).toBe(exists.body.message);
    expect((await h.call('GET', '/v1/accounts/other/models/secret-model', { key: otherKey })).status).toBe(200);
    expect((await h.call('GET', `${v1}/models/llama-8b`, { key: otherKey })).status).toBe(403);
  });

  it('API keys: shown once, listed without secrets, revoked by delete', async () => {
    const created = await h.call<{ key: string; keyId: string; prefix: string }>('POST', `${v1}/users/bob/apiKeys`, { body: { apiKey: { displayName: 'ci' } } });
    expect(created.status).toBe(200);
    expect(created.body.key).toMatch(/^berth_/);
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    const listed = await h.call<{ apiKeys: Array<Record<string, unknown>> }>('GET', `${v1}/users/bob/apiKeys`);
    expect(listed.body.apiKeys.length).toBeGreaterThan(0);
    for (const k of listed.body.apiKeys) expect(k.key).toBeUndefined();
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    expect((await h.call('GET', `${v1}/models/llama-8b`, { key: created.body.key })).status).toBe(200);
    expect((await h.call('DELETE', `${v1}/users/bob/apiKeys/${created.body.keyId}`)).status).toBe(200);
    expect((await h.call('GET', `${v1}/models/llama-8b`, { key: created.body.key })).status).toBe(401);
  });

  it('deleting a user revokes its keys and removes their records', async () => {
    const key = await userWithKey(h, 'temp', 'user');
    expect((await h.call('GET', `${v1}/models/llama-8b`, { key })).status).toBe(200);
    expect((await h.call('DELETE', `${v1}/users/temp`)).status).toBe(200);
    expect((await h.call('GET', `${v1}/models/llama-8b`, { key })).status).toBe(401);
    const storage = h.gateway.resolve(storageToken);
    const left = await storage.resources.list(systemContext('t'), { parent: `accounts/${account}/users/temp`, collection: 'apiKeys', orderBy: [], pageSize: 10 });
    expect(left.totalSize).toBe(0);
  });
});

describe('authentication with the key cache on (the default)', () => {
  let cached: Harness;
  beforeAll(async () => {
    cached = await startHarness({ plugins: [memoryStorage(), apiKeyAuth()] });
    expect((await cached.call('POST', `${v1}/models`, { body: { modelId: 'm', model: baseModelBody() } })).status).toBe(200);
  });
  afterAll(async () => cached.close());

  it('answers from the cached identity, refuses unknown keys, and revokes a deleted key at once', async () => {
    const key = await userWithKey(cached, 'reader', 'user');
    for (let i = 0; i < 3; i += 1) expect((await cached.call('GET', `${v1}/models/m`, { key })).status).toBe(200);
    const wrong = await cached.call('GET', `${v1}/models/m`, { key: `${key}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe(16);
    const listed = await cached.call<{ apiKeys: Array<{ keyId: string }> }>('GET', `${v1}/users/reader/apiKeys`);
    const keyId = listed.body.apiKeys[0]!.keyId;
    expect((await cached.call('DELETE', `${v1}/users/reader/apiKeys/${keyId}`)).status).toBe(200);
    expect((await cached.call('GET', `${v1}/models/m`, { key })).status).toBe(401);
  });

  it('still applies the role to a cached identity', async () => {
    const key = await userWithKey(cached, 'viewer', 'inference-user');
    expect((await cached.call('GET', `${v1}/models/m`, { key })).status).toBe(200);
    const denied = await cached.call('DELETE', `${v1}/models/m`, { key });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe(7);
  });
});
