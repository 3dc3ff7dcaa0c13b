import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servingOptions, storageToken } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { account, adminKey, baseModelBody, startHarness, type Harness } from './harness.js';

/**
 * Issue 16, health: `/readyz` names the unhealthy part (storage, queue) with 503; a closing server lets
 * an SSE chat stream in flight finish while it refuses new requests.
 */
const v1 = `/v1/accounts/${account}`;
const modelName = `accounts/${account}/models/llama-8b`;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    plugins: [
      memoryStorage(),
      apiKeyAuth({ cacheTtlMs: 0 }),
      // 50 tokens/s: a 40-token stream lasts about 0.8 s, long enough to close the server in its middle.
      gpuxRuntime({ provisioner: { kind: 'simulated', delays: { schedulingMs: 10, downloadingMs: 10, initializingMs: 10 }, engine: { speed: { tokensPerSecond: 50 } } } }),
      servingOptions({ pollIntervalMs: 50 }),
    ],
  });
  expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'llama-8b', model: baseModelBody() } })).status).toBe(200);
  expect((await h.call('POST', `${v1}/deployments?deploymentId=chat`, { body: { baseModel: modelName, acceleratorType: 'GPUX_H100_80GB' } })).status).toBe(200);
  const until = Date.now() + 10_000;
  while ((await h.call('GET', `${v1}/deployments/chat`)).body.state !== 'READY') {
    if (Date.now() > until) throw new Error('deployment did not become READY');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
});
afterAll(async () => h?.gateway.stop());

describe('/readyz', () => {
  it('is 200 while storage and queue answer, 503 naming the queue when its store fails', async () => {
    const ready = await fetch(`${h.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    const queue = h.gateway.resolve(storageToken).queue;
    const get = queue.get.bind(queue);
    queue.get = () => Promise.reject(new Error('queue table unreachable'));
    try {
      const failing = await fetch(`${h.url}/readyz`);
      expect(failing.status).toBe(503);
      expect(await failing.json()).toEqual({ status: 'not ready', storage: 'ok', queue: 'unreachable', unhealthy: ['queue'] });
    } finally {
      queue.get = get;
    }
  });
});

describe('graceful shutdown', () => {
  it('lets an SSE chat stream in flight complete, and refuses requests that arrive meanwhile', async () => {
    const response = await fetch(`${h.url}/inference/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: modelName, messages: [{ role: 'user', content: 'Tell a long story' }], max_tokens: 40, stream: true }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('data: ');

    const closed = h.server.close();
    // A request arriving now is not served: the listener is closed (connection refused) or it answers 503.
    const late = await fetch(`${h.url}/v1/accounts/${account}/models`, { headers: { authorization: `Bearer ${adminKey}`, connection: 'close' } }).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);

    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await closed;
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const tokens = text.split('\n').filter((line) => line.startsWith('data: {') && line.includes('"content"')).length;
    expect(tokens).toBeGreaterThan(10);
  });
});
