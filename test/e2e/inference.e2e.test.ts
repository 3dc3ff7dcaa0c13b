import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import {
  definePlugin, notFound, servingDirectoryToken, startReferenceEngine,
  type ModelTarget, type ReferenceEngine, type ReplicaLease, type ServingDirectory,
} from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { account, adminKey, startHarness, userWithKey, type Harness } from './harness.js';

/**
 * The inference surface over real HTTP with the official `openai` client: gateway → fake ServingDirectory
 * (a test double until the serving layer lands) → the real reference engine.
 */
const model = `accounts/${account}/models/llama-8b`;
const deployment = `accounts/${account}/deployments/d1`;
const brokenModel = `accounts/${account}/models/broken`;
const servedModelId = 'reference-model';

interface FakeDirectoryState {
  acquired: number;
  released: number;
  affinityKeys: Array<string | undefined>;
}

function fakeServing(engine: () => ReferenceEngine, deadEndpoint: string, state: FakeDirectoryState) {
  const directory: ServingDirectory = {
    async resolve(_ctx, name) {
      const [modelName, deploymentName] = name.split('#') as [string, string | undefined];
      if ((modelName === model || modelName === brokenModel) && (deploymentName === undefined || deploymentName === deployment)) {
        return { accountId: account, model: modelName, deployment };
      }
      throw notFound(name);
    },
    async acquire(_ctx, target: ModelTarget, options): Promise<ReplicaLease> {
      state.acquired += 1;
      state.affinityKeys.push(options?.affinityKey);
      let done = false;
      return {
        replicaId: 'r1',
        deployment: target.deployment,
        endpoint: target.model === brokenModel ? deadEndpoint : engine().url,
        servedModelId,
        release() {
          if (done) throw new Error('lease released twice');
          done = true;
          state.released += 1;
        },
      };
    },
  };
  return definePlugin({ id: 'fake-serving', register: (binder) => binder.bindValue(servingDirectoryToken, directory, { override: true }) });
}

let h: Harness;
let engine: ReferenceEngine;
let client: OpenAI;
const state: FakeDirectoryState = { acquired: 0, released: 0, affinityKeys: [] };

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  engine = await startReferenceEngine({ host: '127.0.0.1', port: 0, modelIds: [servedModelId] });
  const dead = await startReferenceEngine({ host: '127.0.0.1', port: 0 });
  const deadEndpoint = dead.url;
  await dead.close();
  h = await startHarness({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), fakeServing(() => engine, deadEndpoint, state)] });
  client = new OpenAI({ apiKey: adminKey, baseURL: `${h.url}/inference/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await h?.close();
  await engine?.close();
});
beforeEach(() => {
  engine.setFaults({});
  engine.setSpeed({});
});

describe('inference: chat and completions through the gateway', () => {
  it('answers a plain chat completion with the client model name', async () => {
    const before = state.released;
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 8, user: 'alice' });
    expect(answer.object).toBe('chat.completion');
    expect(answer.model).toBe(model);
    expect(answer.choices[0]?.message.role).toBe('assistant');
    expect(typeof answer.choices[0]?.message.content).toBe('string');
    expect(answer.usage?.completion_tokens).toBeGreaterThan(0);
    expect(state.affinityKeys.at(-1)).toBe('alice');
    expect(state.released).toBe(before + 1);
  });

  it('accepts model#deployment', async () => {
    const answer = await client.chat.completions.create({ model: `${model}#${deployment}`, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
    expect(answer.model).toBe(`${model}#${deployment}`);
  });

  it('streams chat chunks incrementally, ending cleanly', async () => {
    engine.setSpeed({ tokensPerSecond: 100 });
    const started = Date.now();
    const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Tell me a story' }], max_tokens: 12, stream: true, stream_options: { include_usage: true } });
    const arrivals: number[] = [];
    let text = '';
    let usage: number | undefined;
    for await (const chunk of stream) {
      arrivals.push(Date.now() - started);
      expect(chunk.model).toBe(model);
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage.completion_tokens;
    }
    expect(arrivals.length).toBeGreaterThan(5);
    expect(text.length).toBeGreaterThan(0);
    expect(usage).toBeGreaterThan(0);
    // 12 tokens at 100 tokens/s take ~120 ms: the first chunk must arrive well before the last.
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(60);
    await until(() => state.acquired === state.released);
  });

  it('answers the stream with text/event-stream and a request id', async () => {
    const response = await fetch(`${h.url}/inference/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json', 'x-request-id': 'req-stream-1' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-request-id')).toBe('req-stream-1');
    expect(response.headers.get('content-encoding')).toBeNull();
    const body = await response.text();
    expect(body.trim().endsWith('data: [DONE]')).toBe(true);
    expect(body).not.toContain(`"model":"${servedModelId}"`);
  });

  it('answers text completions, plain and streaming', async () => {
    const answer = await client.completions.create({ model, prompt: 'Once upon a time', max_tokens: 6 });
    expect(answer.object).toBe('text_completion');
    expect(answer.model).toBe(model);
    expect(answer.choices[0]?.text.length).toBeGreaterThan(0);
    const stream = await client.completions.create({ model, prompt: 'Once upon a time', max_tokens: 6, stream: true });
    let pieces = 0;
    for await (const chunk of stream) {
      expect(chunk.model).toBe(model);
      pieces += 1;
    }
    expect(pieces).toBeGreaterThan(1);
  });

  it('passes tool calls through, plain and streaming', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [{
      type: 'function',
      function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    }];
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: 'required' });
    const call = answer.choices[0]?.message.tool_calls?.[0];
    expect(answer.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type).toBe('function');
    if (call?.type === 'function') {
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toHaveProperty('city');
    }
    const stream = client.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: 'required' });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
  });

  it('lets an inference-user key call inference and lists usable models', async () => {
    const key = await userWithKey(h, 'infer', 'inference-user');
    const limited = new OpenAI({ apiKey: key, baseURL: `${h.url}/inference/v1`, maxRetries: 0 });
    const answer = await limited.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
    expect(answer.model).toBe(model);
    const models = await limited.models.list();
    expect(Array.isArray(models.data)).toBe(true);
  });
});

describe('inference: errors in the inference format', () => {
  const post = (path: string, body: unknown, key: string | null = adminKey) =>
    h.call<{ error: { message: string; type: string; param: string | null; code: string | null } }>('POST', `/inference/v1/${path}`, { body, key });

  it('400 with param for invalid bodies', async () => {
    const cases: Array<[string, unknown, string | null]> = [
      ['chat/completions', { messages: [{ role: 'user', content: 'x' }] }, 'model'],
      ['chat/completions', { model, messages: [] }, 'messages'],
      ['chat/completions', { model, messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role'],
      ['chat/completions', { model, messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, 'stream'],
      ['chat/completions', { model, messages: [{ role: 'user', content: 'x' }], temperature: 3 }, 'temperature'],
      ['chat/completions', { model, messages: [{ role: 'user', content: 'x' }], max_tokens: 0 }, 'max_tokens'],
      ['completions', { model }, 'prompt'],
      ['completions', { model, prompt: 'x', top_p: -1 }, 'top_p'],
      ['completions', [1, 2], null],
    ];
    for (const [path, body, param] of cases) {
      const r = await post(path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(r.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(r.body.error.type).toBe('invalid_request_error');
      expect(r.body.error.param).toBe(param);
    }
    const notJson = await h.call<{ error: { type: string } }>('POST', '/inference/v1/chat/completions', { raw: '{"model":', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.type).toBe('invalid_request_error');
  });

  it('401 without or with a wrong key', async () => {
    for (const key of [null, 'nope-not-a-key']) {
      const r = await post('chat/completions', { model, messages: [{ role: 'user', content: 'x' }] }, key);
      expect(r.status).toBe(401);
      expect(r.body.error.type).toBe('authentication_error');
    }
    const viaClient = new OpenAI({ apiKey: 'wrong', baseURL: `${h.url}/inference/v1`, maxRetries: 0 });
    await expect(viaClient.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('404 for an unknown model', async () => {
    const r = await post('chat/completions', { model: `accounts/${account}/models/nope`, messages: [{ role: 'user', content: 'x' }] });
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe('not_found_error');
    await expect(client.chat.completions.create({ model: 'accounts/acme/models/nope', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('upstream 4xx passes through in the inference format, with the client model name', async () => {
    const r = await post('chat/completions', { model, messages: [{ role: 'user', content: 'x' }], n: 100 });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'n' });
  });

  it('upstream 500 → 502, upstream 503 → 503, unreachable replica → 503, all in the inference format', async () => {
    const before = state.released;
    engine.setFaults({ errorRate: 1, errorStatus: 500 });
    const failed = await post('chat/completions', { model, messages: [{ role: 'user', content: 'x' }] });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ type: 'server_error', code: 'bad_gateway' });
    expect(failed.body.error.message).not.toContain('injected');
    await expect(client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }], stream: true })).rejects.toBeInstanceOf(OpenAI.InternalServerError);

    engine.setFaults({ errorRate: 1, errorStatus: 503 });
    const overloaded = await post('completions', { model, prompt: 'x' });
    expect(overloaded.status).toBe(503);
    expect(overloaded.body.error.type).toBe('server_error');

    engine.setFaults({});
    const unreachable = await post('chat/completions', { model: brokenModel, messages: [{ role: 'user', content: 'x' }] });
    expect(unreachable.status).toBe(503);
    expect(unreachable.body.error).toMatchObject({ type: 'server_error', code: 'upstream_unavailable' });
    await until(() => state.acquired === state.released);
    // The unreachable call retried once on a fresh lease: 4 calls + 1 retry.
    expect(state.released - before).toBe(5);
  });

  it('a stream cut by the replica ends with an error event the client raises', async () => {
    engine.setFaults({ dropConnectionRate: 1, dropAfterChunks: 2 });
    const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Tell me a story' }], max_tokens: 20, stream: true });
    let chunks = 0;
    await expect(
      (async () => {
        for await (const _chunk of stream) chunks += 1;
      })(),
    ).rejects.toThrow(/closed the stream/);
    // The replica wrote 2 chunks then cut the connection; undici may discard chunks still buffered with the error.
    expect(chunks).toBeLessThanOrEqual(2);
    await until(() => state.acquired === state.released);
  });
});

describe('inference: client disconnects', () => {
  it('aborting mid-stream aborts the upstream request and releases the lease', async () => {
    engine.setSpeed({ tokensPerSecond: 20 });
    const engineBefore = engine.stats();
    const releasedBefore = state.released;
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model, messages: [{ role: 'user', content: 'Tell me a long story' }], max_tokens: 200, stream: true },
      { signal: controller.signal },
    );
    let received = 0;
    // The openai client ends the iteration quietly when its own signal aborts it.
    for await (const _chunk of stream) {
      received += 1;
      if (received === 2) controller.abort();
    }
    expect(received).toBe(2);
    await until(() => state.released === releasedBefore + 1);
    await until(() => engine.stats().clientDisconnects === engineBefore.clientDisconnects + 1 && engine.stats().activeStreams === 0);
    expect(engine.stats().completed).toBe(engineBefore.completed);
  });

  it('a client gone before the upstream answers aborts the upstream call too', async () => {
    engine.setFaults({ latencyMs: 300 });
    const releasedBefore = state.released;
    const acquiredBefore = state.acquired;
    const disconnectsBefore = engine.stats().clientDisconnects;
    const controller = new AbortController();
    const pending = fetch(`${h.url}/inference/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'x' }] }),
      signal: controller.signal,
    });
    await until(() => state.acquired === acquiredBefore + 1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await until(() => state.released === releasedBefore + 1);
    await until(() => engine.stats().clientDisconnects === disconnectsBefore + 1);
  });
});

describe('inference: OpenAPI', () => {
  it('documents the inference routes', async () => {
    const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(doc.paths['/inference/v1/chat/completions']?.post).toBeDefined();
    expect(doc.paths['/inference/v1/completions']?.post).toBeDefined();
    expect(doc.paths['/inference/v1/models']?.get).toBeDefined();
  });
});
