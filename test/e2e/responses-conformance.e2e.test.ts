import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import {
  apiKeyManagerToken, coreServicesToken, definePlugin, notFound, servingDirectoryToken, startReferenceEngine, systemContext,
  type ReferenceEngine, type ReplicaLease, type ServingDirectory,
} from '@berth/core';
import { compactionShape, responseShape, shapeProblems, streamProblems } from '@berth/core/testing';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { account, adminKey, startHarness, type Harness } from './harness.js';

/**
 * The HTTP tests of the Open Responses compliance suite, reproduced against Berth: the same request
 * bodies sent with plain `fetch` to `<base>/responses` (streamed ones read as Server-Sent Events), and
 * every answer checked against the specification's required fields (`@berth/core/testing`) and the
 * suite's checks (output present, status completed, the function-call events), and the compaction
 * endpoint the specification defines, whose output continues the conversation. The model is served by
 * a reference engine on loopback through a serving-directory double that says it takes images.
 */
const model = `accounts/${account}/models/conformance`;
let h: Harness;
let engine: ReferenceEngine;
let base: string;

function directoryPlugin() {
  const directory: ServingDirectory = {
    async resolve(_ctx, name, options) {
      if (name !== model) throw notFound(name);
      const target = { accountId: account, model: name, deployment: `accounts/${account}/deployments/conformance` };
      return options?.facts ? { ...target, facts: { contextLength: 8192, supportsImageInput: true } } : target;
    },
    async acquire(_ctx, target): Promise<ReplicaLease> {
      return { replicaId: 'r1', deployment: target.deployment, servedModelId: 'reference-model', endpoint: engine.url, release: () => {} };
    },
  };
  return definePlugin({ id: 'conformance-directory', register: (binder) => binder.bindValue(servingDirectoryToken, directory, { override: true }) });
}

beforeAll(async () => {
  engine = await startReferenceEngine({ modelIds: ['reference-model'] });
  h = await startHarness({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), directoryPlugin()] });
  base = `${h.url}/inference/v1`;
});
afterAll(async () => {
  await h?.close();
  await engine?.close();
});

type Json = Record<string, unknown>;

/** POST `<base><path>` with a bearer key, as the compliance suite sends it. */
function post(path: string, body: Json): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` }, body: JSON.stringify(body) });
}

/** A whole response (`stream: false`), checked against the response object's required fields. */
async function create(body: Json): Promise<Json> {
  const answer = await post('/responses', { ...body, stream: false });
  const text = await answer.text();
  expect(answer.status, text).toBe(200);
  const response = JSON.parse(text) as Json;
  expect(shapeProblems(response, responseShape)).toEqual([]);
  return response;
}

/** The `data:` payloads of a Server-Sent Events answer, in order (comments and `event:` lines aside). */
async function createStreamed(body: Json): Promise<{ events: Json[]; names: string[] }> {
  const answer = await post('/responses', { ...body, stream: true });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toContain('text/event-stream');
  const events: Json[] = [];
  const names: string[] = [];
  for (const block of (await answer.text()).split('\n\n')) {
    const lines = block.split('\n');
    const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
    if (data.length === 0) continue;
    expect(data).not.toBe('[DONE]');
    events.push(JSON.parse(data) as Json);
    names.push(lines.find((line) => line.startsWith('event:'))?.slice(6).trim() ?? '');
  }
  expect(streamProblems(events)).toEqual([]);
  return { events, names: names };
}

const outputTypes = (response: Json): string[] => (response.output as Json[]).map((item) => String(item.type));
const outputText = (response: Json): string =>
  (response.output as Json[]).flatMap((item) => (item.type === 'message' ? (item.content as Json[]) : [])).map((part) => String(part.text ?? '')).join('');

const getWeather = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } },
    required: ['location'],
  },
};
// The reference engine is deterministic: it calls a tool when the user's message names it.
const weatherQuestion = "What's the weather like in San Francisco? Use get_weather.";

describe('the Open Responses compliance suite against Berth', () => {
  it('basic text response: a user message answers a completed response with output', async () => {
    const response = await create({ model, input: [{ type: 'message', role: 'user', content: 'Say hello in exactly 3 words.' }] });
    expect(response.status).toBe('completed');
    expect(outputTypes(response)).toEqual(['message']);
    expect(outputText(response).length).toBeGreaterThan(0);
  });

  it('streaming response: every event conforms and the last carries the completed response', async () => {
    const { events, names } = await createStreamed({ model, input: [{ type: 'message', role: 'user', content: 'Count from 1 to 5.' }] });
    expect(events.length).toBeGreaterThan(4);
    expect(names).toEqual(events.map((event) => event.type));
    const last = events.at(-1)!;
    expect(last.type).toBe('response.completed');
    const final = last.response as Json;
    expect(shapeProblems(final, responseShape)).toEqual([]);
    expect(final.status).toBe('completed');
    const deltas = events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('');
    expect(deltas).toBe(outputText(final));
  });

  it('system prompt: a system message before the user message', async () => {
    const response = await create({
      model,
      input: [
        { type: 'message', role: 'system', content: 'You are a pirate. Always respond in pirate speak.' },
        { type: 'message', role: 'user', content: 'Say hello.' },
      ],
    });
    expect(response.status).toBe('completed');
    expect(outputTypes(response).length).toBeGreaterThan(0);
  });

  it('tool calling: a function tool answers a function_call output item', async () => {
    const response = await create({ model, input: [{ type: 'message', role: 'user', content: weatherQuestion }], tools: [getWeather] });
    expect(outputTypes(response)).toContain('function_call');
    const call = (response.output as Json[]).find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'get_weather', status: 'completed' });
    expect(JSON.parse(String(call.arguments))).toHaveProperty('location');
    expect(response.tools).toEqual([{ ...getWeather, strict: true }]);
  });

  it('tool calling, streamed: the function_call item is added, its arguments stream, then it is done', async () => {
    const { events } = await createStreamed({ model, input: [{ type: 'message', role: 'user', content: weatherQuestion }], tools: [getWeather] });
    const typeOf = (event: Json) => String(event.type);
    const itemTypeOf = (event: Json) => String((event.item as Json | null)?.type);
    expect(events.some((e) => typeOf(e) === 'response.output_item.added' && itemTypeOf(e) === 'function_call')).toBe(true);
    expect(events.map(typeOf)).toEqual(expect.arrayContaining(['response.function_call_arguments.delta', 'response.function_call_arguments.done']));
    expect(events.some((e) => typeOf(e) === 'response.output_item.done' && itemTypeOf(e) === 'function_call')).toBe(true);
    const done = events.find((e) => typeOf(e) === 'response.function_call_arguments.done')!;
    const deltas = events.filter((e) => typeOf(e) === 'response.function_call_arguments.delta').map((e) => e.delta).join('');
    expect(deltas).toBe(done.arguments);
  });

  it('image input: input_text and an input_image data URI in one user message', async () => {
    const pixel = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const response = await create({
      model,
      input: [{
        type: 'message', role: 'user',
        content: [{ type: 'input_text', text: 'What do you see in this image? Answer in one sentence.' }, { type: 'input_image', image_url: pixel }],
      }],
    });
    expect(response.status).toBe('completed');
    expect(outputTypes(response).length).toBeGreaterThan(0);
    const items = await fetch(`${base}/responses/${String(response.id)}/input_items`, { headers: { authorization: `Bearer ${adminKey}` } });
    const list = (await items.json()) as { data: Json[] };
    expect(list.data[0]).toMatchObject({ type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text' }, { type: 'input_image', image_url: pixel, detail: 'auto' }] });
  });

  it('multi-turn conversation: assistant and user messages as history', async () => {
    const response = await create({
      model,
      input: [
        { type: 'message', role: 'user', content: 'My name is Alice.' },
        { type: 'message', role: 'assistant', content: 'Hello Alice! Nice to meet you. How can I help you today?' },
        { type: 'message', role: 'user', content: 'What is my name?' },
      ],
    });
    expect(response.status).toBe('completed');
    expect(outputTypes(response).length).toBeGreaterThan(0);
    // The history reached the model: more prompt tokens than the last message alone.
    const alone = await create({ model, input: [{ type: 'message', role: 'user', content: 'What is my name?' }] });
    expect((response.usage as Json).input_tokens).toBeGreaterThan((alone.usage as Json).input_tokens as number);
  });
});

describe('compaction', () => {
  const history = [
    { type: 'message', role: 'user', content: 'My name is Alice.' },
    { type: 'message', role: 'assistant', content: 'Hello Alice! Nice to meet you. How can I help you today?' },
    { type: 'message', role: 'user', content: 'I am planning a trip to Lisbon in May.' },
  ];

  it('compacts a conversation to its user messages and a compaction item, which a following response takes as input', async () => {
    const answer = await post('/responses/compact', { model, input: history });
    const compacted = (await answer.json()) as Json;
    expect(answer.status, JSON.stringify(compacted)).toBe(200);
    expect(shapeProblems(compacted, compactionShape)).toEqual([]);
    expect(compacted.object).toBe('response.compaction');
    const output = compacted.output as Json[];
    expect(output.map((item) => (item.type === 'message' ? item.role : item.type))).toEqual(['user', 'user', 'compaction']);
    expect(output[2]).toMatchObject({ id: expect.stringMatching(/^cmp_/), encrypted_content: expect.stringMatching(/^berth\.compaction\.v1\./) });
    expect((compacted.usage as Json).output_tokens).toBeGreaterThan(0);

    const next = await create({ model, input: [...output, { type: 'message', role: 'user', content: 'Where am I going?' }] });
    expect(next.status).toBe('completed');
    expect(outputText(next).length).toBeGreaterThan(0);
    const streamed = await createStreamed({ model, input: [...output, { type: 'message', role: 'user', content: 'And when?' }] });
    expect(streamed.events.at(-1)!.type).toBe('response.completed');
  });

  it('works with the official client: compact a stored response, then continue from the compacted output', async () => {
    const client = new OpenAI({ apiKey: adminKey, baseURL: base, maxRetries: 0 });
    const first = await client.responses.create({ model, input: 'My ship is called Aurora' });
    const second = await client.responses.create({ model, input: 'She is moored in Oslo', previous_response_id: first.id });
    const compacted = await client.responses.compact({ model, previous_response_id: second.id });
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.map((item) => item.type)).toEqual(['message', 'message', 'compaction']);
    const next = await client.responses.create({
      model, input: [...(compacted.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'What is my ship called?' }],
    });
    expect(next.status).toBe('completed');
    const items = await client.responses.inputItems.list(next.id, { order: 'asc' });
    expect(items.data.map((item) => item.type)).toEqual(['message', 'message', 'compaction', 'message']);
  });

  it('answers bad compact requests with 400 in the inference error format and another account\'s response with 404', async () => {
    const cases: Array<[Json, string]> = [
      [{ input: 'x' }, 'model'],
      [{ model: 'gpt-5', input: 'x' }, 'model'],
      [{ model }, 'input'],
      [{ model, input: 'x', stream: true }, 'stream'],
      [{ model, input: [{ type: 'compaction', encrypted_content: 'gAAAAB-not-ours' }] }, 'input[0].encrypted_content'],
      [{ model, input: [{ type: 'message', role: 'robot', content: 'x' }] }, 'input[0].role'],
    ];
    for (const [body, param] of cases) {
      const answer = await post('/responses/compact', body);
      const error = ((await answer.json()) as { error: Json }).error;
      expect(answer.status, `${JSON.stringify(body)} → ${JSON.stringify(error)}`).toBe(400);
      expect(error).toMatchObject({ type: 'invalid_request_error', param, message: expect.any(String), code: expect.any(String) });
    }
    expect((await post('/responses/compact', { model: `accounts/${account}/models/none`, input: 'x' })).status).toBe(404);
    expect((await fetch(`${base}/responses/compact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, input: 'x' }) })).status).toBe(401);

    const mine = await create({ model, input: 'private' });
    const ctx = systemContext('test');
    await h.gateway.resolve(coreServicesToken).users.create(ctx, 'other', { role: 'admin' }, 'root');
    const otherKey = (await h.gateway.resolve(apiKeyManagerToken).create(ctx, 'accounts/other/users/root', {})).key;
    const foreign = await fetch(`${base}/responses/compact`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${otherKey}` },
      body: JSON.stringify({ model, previous_response_id: mine.id }),
    });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: Json }).error).toMatchObject({ type: 'not_found_error', param: 'previous_response_id' });
  });

  it('is documented in /openapi.json', async () => {
    const doc = await h.call<{ paths: Record<string, Record<string, { operationId?: string }>> }>('GET', '/openapi.json');
    expect(doc.body.paths['/inference/v1/responses/compact']?.post?.operationId).toBe('compactResponse');
  });
});
