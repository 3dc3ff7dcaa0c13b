import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { createGateway, type Gateway } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { berth } from '@berth/plugin-transport-fastify';
import { account, adminKey, baseModelBody } from './harness.js';

/**
 * Issue 8 item 3: Berth mounted under `/berth` in a host's own Fastify app. The host keeps its routes,
 * hooks, content-type parser and error format; Berth answers in its own, and adds nothing outside its
 * scope.
 */
let gateway: Gateway;
let host: FastifyInstance;
let url = '';
const hostHookCalls: string[] = [];

beforeAll(async () => {
  gateway = createGateway({
    plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 })],
    config: { bootstrapAccountId: account, bootstrapApiKey: adminKey },
  });
  await gateway.start();

  host = Fastify();
  host.addHook('onRequest', async (request) => {
    hostHookCalls.push(request.url);
  });
  host.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => done(null, `host saw: ${String(body)}`));
  host.setErrorHandler((error, _request, reply) => {
    void reply.code(418).send({ hostError: (error as Error).message });
  });
  host.get('/host/hello', async () => ({ hello: 'from the host' }));
  host.post('/host/echo', async (request) => ({ echoed: request.body }));
  host.get('/host/fail', async () => {
    throw new Error('host failure');
  });
  await host.register(berth, { gateway, prefix: '/berth' });
  url = await host.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await host?.close();
  await gateway?.stop();
});

const call = async (method: string, path: string, init: { body?: string; contentType?: string; key?: string | null } = {}) => {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers.authorization = `Bearer ${init.key ?? adminKey}`;
  if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
  const response = await fetch(`${url}${path}`, { method, headers, ...(init.body !== undefined ? { body: init.body } : {}) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body };
};

describe('Berth under /berth in a host app', () => {
  it('serves the control plane under the prefix, with its auth and error format', async () => {
    const created = await call('POST', `/berth/v1/accounts/${account}/models`, { body: JSON.stringify({ modelId: 'm1', model: baseModelBody() }) });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: `accounts/${account}/models/m1` });
    const got = await call('GET', `/berth/v1/accounts/${account}/models/m1`);
    expect(got.status).toBe(200);
    const anonymous = await call('GET', `/berth/v1/accounts/${account}/models/m1`, { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 16, details: [] });
    const missing = await call('GET', `/berth/v1/accounts/${account}/models/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 5 });
    const unknownPath = await call('GET', '/berth/v9/nothing');
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.body).toMatchObject({ code: 5, details: [] });
    const wrongType = await call('POST', `/berth/v1/accounts/${account}/models`, { body: 'hi', contentType: 'text/plain' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toMatchObject({ code: 3 });
    expect(await call('GET', '/berth/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('hands out signed dataset URLs under the prefix, and accepts the upload there', async () => {
    const v1 = `/berth/v1/accounts/${account}`;
    expect((await call('POST', `${v1}/datasets`, { body: JSON.stringify({ datasetId: 'ds', dataset: { format: 'CHAT' } }) })).status).toBe(200);
    const jsonl = '{"messages":[{"role":"user","content":"hi"}]}\n';
    const announced = await call('POST', `${v1}/datasets/ds:getUploadEndpoint`, { body: JSON.stringify({ filenameToSize: { 'a.jsonl': String(jsonl.length) } }) });
    expect(announced.status).toBe(200);
    const signed = (announced.body as { filenameToSignedUrls: Record<string, string> }).filenameToSignedUrls['a.jsonl']!;
    expect(signed.startsWith(`${url}/berth/v1/`)).toBe(true);
    const put = await fetch(signed, { method: 'PUT', body: jsonl, headers: { 'content-type': 'application/jsonl' } });
    expect(put.status).toBe(200);
  });

  it('keeps the host routes, hooks, content-type parser and error format', async () => {
    expect(await call('GET', '/host/hello')).toEqual({ status: 200, body: { hello: 'from the host' } });
    expect(await call('POST', '/host/echo', { body: 'abc', contentType: 'text/plain' })).toEqual({ status: 200, body: { echoed: 'host saw: abc' } });
    // The host's default JSON parser is still there (Berth removed only its own scope's parsers).
    expect(await call('POST', '/host/echo', { body: '{"a":1}' })).toEqual({ status: 200, body: { echoed: { a: 1 } } });
    expect(await call('GET', '/host/fail')).toEqual({ status: 418, body: { hostError: 'host failure' } });
    // The host's onRequest hook runs for its routes and, as an ancestor's hook, for Berth's too.
    expect(hostHookCalls).toContain('/host/hello');
    expect(hostHookCalls).toContain(`/berth/v1/accounts/${account}/models/m1`);
    // Unknown paths outside the prefix get the host's (Fastify's) 404, not Berth's body.
    const outside = await call('GET', '/elsewhere');
    expect(outside.status).toBe(404);
    expect(outside.body).not.toHaveProperty('details');
  });

  it('adds nothing to the host instance outside its scope', () => {
    expect(host.hasContentTypeParser('application/json')).toBe(true);
    expect(host.hasContentTypeParser('text/plain')).toBe(true);
    expect(host.hasRequestDecorator('berthPrincipal')).toBe(false);
    expect(host.hasRoute({ method: 'GET', url: '/healthz' })).toBe(false);
    expect(host.hasRoute({ method: 'GET', url: '/berth/healthz' })).toBe(true);
  });

  it('documents its paths under the prefix', async () => {
    const doc = await call('GET', '/berth/openapi.json');
    expect(doc.status).toBe(200);
    const paths = Object.keys((doc.body as { paths: Record<string, unknown> }).paths);
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.every((path) => path.startsWith('/berth/'))).toBe(true);
    expect(paths).toContain('/berth/v1/accounts/{account_id}/models/{model_id}');
    const page = await call('GET', '/berth/docs');
    expect(String(page.body)).toContain('href="/berth/openapi.json"');
  });
});
