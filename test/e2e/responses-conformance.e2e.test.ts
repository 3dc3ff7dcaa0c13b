import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  definePlugin, notFound, servingDirectoryToken, startReferenceEngine,
  type ReferenceEngine, type ReplicaLease, type ServingDirectory,
} from '@berth/core';
import { responseShape, shapeProblems, streamProblems } from '@berth/core/testing';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { account, adminKey, startHarness, type Harness } from './harness.js';

/**
 * The HTTP tests of the Open Responses compliance suite, reproduced against Berth: the same request
 * bodies sent with plain `fetch` to `<base>/responses` (streamed ones read as Server-Sent Events), and
 * every answer checked against the specification's required fields (`@berth/core/testing`) and the
 * suite's checks (output present, status completed, the function-call events). The model is served by
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
