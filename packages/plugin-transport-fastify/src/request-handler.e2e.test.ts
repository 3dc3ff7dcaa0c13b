import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGateway, definePlugin, notFound, servingDirectoryToken, startReferenceEngine,
  type Gateway, type ReferenceEngine, type ServingDirectory,
} from '@berth/core';
import { memoryStorage, staticTokenAuth } from '@berth/core/testing';
import { createBerthRequestHandler, type BerthRequestHandler } from './request-handler.js';

/**
 * Berth served by a plain node:http server next to the host's own routes, through the request handler
 * (the way an Express or Connect app mounts it too): control plane, auth, error format, streamed
 * inference answers, the host's routes and body handling untouched.
 */
const account = 'acme';
const adminKey = 'request-handler-admin-key-0123';
const model = `accounts/${account}/models/m1`;

/** A ServingDirectory test double sending every request of `model` to one reference engine. */
function oneEngine(engine: () => ReferenceEngine) {
  const directory: ServingDirectory = {
    async resolve(_ctx, name) {
      if (name !== model) throw notFound(name);
      return { accountId: account, model, deployment: `accounts/${account}/deployments/d1` };
    },
    async acquire(_ctx, target) {
      return { replicaId: 'r1', deployment: target.deployment, endpoint: engine().url, servedModelId: 'reference-model', release() {} };
    },
  };
  return definePlugin({ id: 'one-engine', register: (binder) => binder.bindValue(servingDirectoryToken, directory, { override: true }) });
}

let gateway: Gateway;
let engine: ReferenceEngine;
let handler: BerthRequestHandler;
let server: Server;
let url = '';
const hostSaw: string[] = [];

/** The host app: its own routes; it reads the bodies of its own requests only. */
function hostApp(req: IncomingMessage, res: ServerResponse): void {
  hostSaw.push(req.url ?? '');
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    if (req.url === '/hello') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ hello: 'host', body }));
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('host: not found');
  });
}

beforeAll(async () => {
  engine = await startReferenceEngine({ host: '127.0.0.1', port: 0, speed: { tokensPerSecond: 20 } });
  gateway = createGateway({
    plugins: [memoryStorage(), staticTokenAuth({ [adminKey]: { userName: `accounts/${account}/users/admin`, accountId: account, role: 'admin' } }), oneEngine(() => engine)],
    config: { bootstrapAccountId: account, pageTokenSecret: 'request-handler-test-secret' },
  });
  await gateway.start();
  handler = await createBerthRequestHandler({ gateway, prefix: '/berth' });
  server = createServer((req, res) => {
    // A Connect-style mount under /mounted strips the mount path from `url` and keeps `originalUrl`.
    if (req.url?.startsWith('/mounted/berth/')) {
      Object.assign(req, { originalUrl: req.url.slice('/mounted'.length), url: req.url.slice('/mounted/berth'.length) });
    }
    handler(req, res, () => hostApp(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await handler?.close();
  await gateway?.stop();
  await engine?.close();
});

const auth = { authorization: `Bearer ${adminKey}` };
const json = { ...auth, 'content-type': 'application/json' };

describe('createBerthRequestHandler on a node:http server', () => {
  it('serves the control plane under the prefix, with its auth and error format', async () => {
    const created = await fetch(`${url}/berth/v1/accounts/${account}/models`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ modelId: 'm1', model: { kind: 'HUB_BASE_MODEL', baseModelDetails: { checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] } } }),
    });
    expect(created.status).toBe(200);
    expect(await created.json()).toMatchObject({ name: model });
    const anonymous = await fetch(`${url}/berth/v1/accounts/${account}/models/m1`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 16 });
    const missing = await fetch(`${url}/berth/v1/accounts/${account}/models/nope`, { headers: auth });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 5, details: [] });
    expect(await (await fetch(`${url}/berth/healthz`)).json()).toEqual({ status: 'ok' });
    expect(handler.prefix).toBe('/berth');
  });

  it('streams inference answers (SSE) chunk by chunk through the host server', async () => {
    const response = await fetch(`${url}/berth/inference/v1/chat/completions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Tell me a story' }], max_tokens: 10, stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const first = decoder.decode((await reader.read()).value);
    // The first chunk arrives while the engine is still generating (10 tokens at 20/s): not buffered.
    expect(first).toContain('data: ');
    expect(first).not.toContain('[DONE]');
    let rest = '';
    for (let part = await reader.read(); !part.done; part = await reader.read()) rest += decoder.decode(part.value);
    const events = (first + rest).split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.length).toBeGreaterThan(2);
    expect(events.at(-1)).toBe('data: [DONE]');
  });

  it('leaves every other path, and its body, to the host', async () => {
    const hello = await fetch(`${url}/hello`, { method: 'POST', body: 'host body' });
    expect(await hello.json()).toEqual({ hello: 'host', body: 'host body' });
    const elsewhere = await fetch(`${url}/berthday`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.text()).toBe('host: not found');
    expect(hostSaw).toEqual(['/hello', '/berthday']);
  });

  it('routes by originalUrl when a Connect-style mount stripped the prefix', async () => {
    const response = await fetch(`${url}/mounted/berth/v1/accounts/${account}/models/m1`, { headers: auth });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: model });
  });
});

describe('createBerthRequestHandler edge cases', () => {
  it('refuses a request whose body a host parser already read, instead of waiting for it forever', async () => {
    const errors: unknown[] = [];
    const early = createServer((req, res) => {
      req.resume();
      req.on('end', () => handler(req, res, (error) => {
        errors.push(error);
        res.writeHead(500).end(error instanceof Error ? error.message : 'no error');
      }));
    });
    await new Promise<void>((resolve) => early.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(early.address() as AddressInfo).port}/berth/v1/accounts/${account}/models?modelId=m2`, {
        method: 'POST',
        headers: json,
        body: '{}',
      });
      expect(response.status).toBe(500);
      expect(await response.text()).toContain('mount Berth before body parsers');
      expect(errors).toHaveLength(1);
    } finally {
      await new Promise((resolve) => early.close(resolve));
    }
  });

  it('answers everything at the root without next, and 503 UNAVAILABLE once closed', async () => {
    const rootHandler = await createBerthRequestHandler({ gateway, prefix: '/' });
    expect(rootHandler.prefix).toBe('');
    const plain = createServer((req, res) => rootHandler(req, res));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const unknown = await fetch(`${base}/v9/nothing`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ code: 5 });
      await rootHandler.close();
      const closed = await fetch(`${base}/v1/accounts/${account}/models`, { headers: auth });
      expect(closed.status).toBe(503);
      expect(await closed.json()).toMatchObject({ code: 14 });
    } finally {
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
