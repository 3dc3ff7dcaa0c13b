import { afterEach, describe, expect, it } from 'vitest';
import { resourceRoutesToken, type RequestContext, type RouteSpec } from '@berth/core';
import { MemoryStorage, createTestGateway, type TestGateway } from '@berth/core/testing';
import { apiKeyAuth } from './api-key-auth.js';
import { sharedStorage } from './test-fixtures.js';

const account = 'acme';
const admin: RequestContext = { requestId: 'test-boss', principal: { userName: `accounts/${account}/users/boss`, accountId: account, role: 'admin' } };

let tg: TestGateway | undefined;
afterEach(async () => {
  await tg?.stop();
  tg = undefined;
});

const request = (params: Record<string, string>, parts: { query?: Record<string, string | number>; body?: unknown } = {}) => ({
  ctx: admin, params: { account_id: account, user_id: 'boss', ...params }, query: parts.query ?? {}, body: parts.body, baseUrl: 'http://gateway.test',
});

describe('the API-key routes of apiKeyAuth()', () => {
  it('are contributed to the route table by the plugin, and drive the key manager', async () => {
    tg = await createTestGateway({ plugins: [sharedStorage(new MemoryStorage()), apiKeyAuth({ cacheTtlMs: 0 })] });
    await tg.services.users.create({ requestId: 'system' }, account, { role: 'admin', email: 'boss@acme.test' }, 'boss');
    const routes = tg.gateway.resolveAll(resourceRoutesToken).flat().filter((r) => r.tag === 'API keys');
    expect(routes.map((r) => `${r.method} ${r.path} ${r.operationId} ${r.permission ?? '-'}`)).toEqual([
      'POST /v1/accounts/{account_id}/users/{user_id}/apiKeys createApiKey -',
      'GET /v1/accounts/{account_id}/users/{user_id}/apiKeys listApiKeys -',
      'DELETE /v1/accounts/{account_id}/users/{user_id}/apiKeys/{key_id} deleteApiKey -',
    ]);
    const [create, list, remove] = routes as [RouteSpec, RouteSpec, RouteSpec];
    const created = (await create.handle(request({}, { body: { apiKey: { displayName: 'ci' } } }))) as { keyId: string; key: string; etag: string };
    expect(created.key).toBeTruthy();
    const listed = (await list.handle(request({}, { query: { pageSize: 10 } }))) as { apiKeys: { keyId: string; key?: string }[]; totalSize: number };
    expect(listed.apiKeys.map((k) => k.keyId)).toContain(created.keyId);
    expect(listed.apiKeys.every((k) => k.key === undefined)).toBe(true);
    await expect(remove.handle(request({ key_id: created.keyId }, { query: { etag: 'stale' } }))).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await remove.handle(request({ key_id: created.keyId }, { query: { etag: created.etag } }))).toEqual({});
  });
});
