import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import {
  definePlugin, notFound, servingDirectoryToken, startReferenceEngine,
  type ReferenceEngine, type ReplicaLease, type ServingDirectory,
} from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { account, adminKey, startHarness, type Harness } from './harness.js';

/**
 * Streamed responses (`stream: true`) with the official client, raw events and the stream helper,
 * against a reference engine whose speed the test sets: gateway → serving directory double → engine.
 */
const model = `accounts/${account}/models/streamer`;
const deadModel = `accounts/${account}/models/dead`;
let h: Harness;
let engine: ReferenceEngine;
let client: OpenAI;
const leases = { acquired: 0, released: 0 };

function directoryPlugin(deadEndpoint: string) {
  const directory: ServingDirectory = {
    async resolve(_ctx, name) {
      if (name !== model && name !== deadModel) throw notFound(name);
      return { accountId: account, model: name, deployment: `accounts/${account}/deployments/d` };
    },
    async acquire(_ctx, target): Promise<ReplicaLease> {
      leases.acquired += 1;
      return {
        replicaId: 'r1', deployment: target.deployment, servedModelId: 'reference-model',
        endpoint: target.model === deadModel ? deadEndpoint : engine.url,
        release: () => { leases.released += 1; },
      };
    },
  };
  return definePlugin({ id: 'streaming-directory', register: (binder) => binder.bindValue(servingDirectoryToken, directory, { override: true }) });
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  engine = await startReferenceEngine({ modelIds: ['reference-model'] });
  const dead = await startReferenceEngine();
  await dead.close();
  h = await startHarness({
    plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), directoryPlugin(dead.url)],
    serve: { inference: { responsesHeartbeatMs: 40 } },
  });
  client = new OpenAI({ apiKey: adminKey, baseURL: `${h.url}/inference/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await h?.close();
  await engine?.close();
});
beforeEach(() => engine.setSpeed({}));

describe('streamed responses', () => {
  it('sends every event in order with sequence numbers, tokens as they arrive', async () => {
    engine.setSpeed({ tokensPerSecond: 150 });
    const started = Date.now();
    const stream = await client.responses.create({ model, input: 'Tell me about the harbor', stream: true, max_output_tokens: 20 });
    const events: Array<{ type: string; sequence_number: number; at: number; delta?: string }> = [];
    for await (const event of stream) events.push({ ...(event as unknown as { type: string; sequence_number: number; delta?: string }), at: Date.now() - started });
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', expect.stringMatching(/^response\.(completed|incomplete)$/)]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(5);
    // ~150 tokens/s: the deltas are spread over time, not buffered into one write.
    expect(deltas.at(-1)!.at - deltas[0]!.at).toBeGreaterThan(40);
    const final = events.at(-1) as unknown as { response: OpenAI.Responses.Response };
    const streamed = deltas.map((d) => d.delta).join('');
    const finalText = final.response.output
      .flatMap((item) => (item.type === 'message' ? item.content : []))
      .map((part) => (part.type === 'output_text' ? part.text : ''))
      .join('');
    expect(streamed.length).toBeGreaterThan(0);
    expect(finalText).toBe(streamed);
    const stored = await client.responses.retrieve(final.response.id);
    expect(stored.output_text).toBe(streamed);
    expect(stored.status).toBe(final.response.status);
  });

  it('works with the stream helper, for text and for a function call', async () => {
    const stream = client.responses.stream({ model, input: 'Say hello' });
    let streamed = '';
    stream.on('response.output_text.delta', (event) => {
      streamed += event.delta;
    });
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(streamed);
    expect(final.output_text.length).toBeGreaterThan(0);

    const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const calling = client.responses.stream({ model, input: 'Use get_weather for Oslo', tools });
    let args = '';
    calling.on('response.function_call_arguments.delta', (event) => {
      args += event.delta;
    });
    const called = await calling.finalResponse();
    const call = called.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: args });

    const answered = client.responses.stream({
      model, tools, previous_response_id: called.id,
      input: [{ type: 'function_call_output', call_id: (call as OpenAI.Responses.ResponseFunctionToolCall).call_id, output: '{"temperature":3}' }],
    });
    expect((await answered.finalResponse()).output_text.length).toBeGreaterThan(0);
  });

  it('cancels the upstream generation when the client disconnects', async () => {
    engine.setSpeed({ tokensPerSecond: 20 });
    const before = engine.stats().clientDisconnects;
    const released = leases.released;
    const stream = await client.responses.create({ model, input: 'A long story please', stream: true });
    let seen = 0;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta' && ++seen === 2) break;
    }
    await until(() => engine.stats().clientDisconnects > before);
    await until(() => leases.released > released);
    await until(() => engine.stats().activeStreams === 0);
  });

  it('writes a heartbeat comment while the model is silent', async () => {
    engine.setSpeed({ timeToFirstTokenMs: 250 });
    const response = await fetch(`${h.url}/inference/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'hello', stream: true, max_output_tokens: 3 }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    expect(text).toContain(': keep-alive\n\n');
    expect(text).toContain('event: response.created\ndata: {');
    expect(text.trimEnd().split('\n\n').at(-1)).toMatch(/^event: response\.incomplete\ndata: /);
  });

  it('answers validation errors before streaming as HTTP errors, and a dead replica as response.failed', async () => {
    const invalid = await h.call<{ error: Record<string, unknown> }>('POST', '/inference/v1/responses', { body: { model, input: 'x', stream: true, temperature: 9 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({ param: 'temperature', type: 'invalid_request_error' });
    expect((await h.call('POST', '/inference/v1/responses', { body: { model: `accounts/${account}/models/none`, input: 'x', stream: true } })).status).toBe(404);

    const stream = await client.responses.create({ model: deadModel, input: 'x', stream: true });
    const types: string[] = [];
    let failed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.failed') failed = event.response;
    }
    expect(types).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'upstream_unavailable' } });
  });
});
