import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '@berth/core';
import { createAppServer, type EmbeddedServer } from './app.js';
import { buildGateway, readSettings } from './gateway.js';

const apiKey = 'embed-node-http-test-key-0123456789';
let gateway: Gateway;
let embedded: EmbeddedServer;
let server: Server;
let url = '';

beforeAll(async () => {
  gateway = buildGateway(readSettings({ BERTH_API_KEY: apiKey, LOG_LEVEL: 'error' }));
  await gateway.start();
  embedded = await createAppServer(gateway);
  server = embedded.server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await embedded?.close();
  await gateway?.stop();
});

const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
const v1 = '/berth/v1/accounts/my-account';

describe('Berth under /berth in a node:http server', () => {
  it('keeps the app\'s own routes, and their bodies', async () => {
    expect(await (await fetch(`${url}/`)).json()).toEqual({ hello: 'from your node:http app', berth: '/berth/docs' });
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await post('/echo', { a: 1 })).json()).toEqual({ echoed: '{"a":1}' });
    const elsewhere = await fetch(`${url}/berthday`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toEqual({ error: 'no route for GET /berthday' }); // the app's own 404
  });

  it('serves Berth\'s API, auth and error format under /berth', async () => {
    expect(await (await fetch(`${url}/berth/healthz`)).json()).toEqual({ status: 'ok' });
    const anonymous = await fetch(`${url}${v1}/models`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 16 });
    const bad = await post(`${v1}/models`, { model: { colour: 'blue' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 3, message: expect.stringContaining('colour') });
    const paths = Object.keys(((await (await fetch(`${url}/berth/openapi.json`)).json()) as { paths: object }).paths);
    expect(paths).toContain('/berth/v1/accounts/{account_id}/models');
  });

  it('deploys a model and streams a chat answer (SSE) through the node:http server', async () => {
    const model = await post(`${v1}/models`, {
      modelId: 'llama-3-8b',
      model: { kind: 'HUB_BASE_MODEL', contextLength: 8192, baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] } },
    });
    expect(model.status).toBe(200);
    const deployment = await post(`${v1}/deployments?deploymentId=chat`, { baseModel: 'accounts/my-account/models/llama-3-8b', acceleratorType: 'GPUX_H100_80GB' });
    expect(deployment.status).toBe(200);
    let state = '';
    for (let attempt = 0; attempt < 300 && state !== 'READY'; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      state = ((await (await fetch(`${url}${v1}/deployments/chat?readMask=state`, { headers })).json()) as { state: string }).state;
    }
    expect(state).toBe('READY');

    const chat = await post('/berth/inference/v1/chat/completions', {
      model: 'accounts/my-account/models/llama-3-8b',
      messages: [{ role: 'user', content: 'Hello!' }],
      max_tokens: 8,
      stream: true,
    });
    expect(chat.status).toBe(200);
    expect(chat.headers.get('content-type')).toContain('text/event-stream');
    const events = (await chat.text()).split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.length).toBeGreaterThan(2);
    expect(JSON.parse(events[0]!.slice('data: '.length))).toMatchObject({ object: 'chat.completion.chunk' });
    expect(events.at(-1)).toBe('data: [DONE]');
  });
});
