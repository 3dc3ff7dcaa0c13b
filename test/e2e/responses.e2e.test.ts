import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { apiKeyManagerToken, coreServicesToken, queueWorkers, servingOptions, systemContext } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { account, adminKey, baseModelBody, startHarness, type Harness } from './harness.js';
import { rejection } from './openai-rejection.js';

/**
 * The Responses API over HTTP with the official `openai` client, against deployments on simulated
 * GPUX replicas (reference engines on loopback): the same routing chat completions take.
 */
let h: Harness;
let client: OpenAI;
const v1 = `/v1/accounts/${account}`;
const model = `accounts/${account}/models/llama-8b`;
const vision = `accounts/${account}/models/vision`;
const small = `accounts/${account}/models/small`;

async function waitReady(deployment: string): Promise<void> {
  const until = Date.now() + 15_000;
  for (;;) {
    const r = await h.call('GET', `${v1}/deployments/${deployment}`);
    if (r.body.state === 'READY') return;
    if (Date.now() > until) throw new Error(`deployment ${deployment} stayed ${String(r.body.state)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function deploy(modelId: string, body: Record<string, unknown>): Promise<void> {
  const created = await h.call('POST', `${v1}/models`, { body: { modelId, model: baseModelBody(body) } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const deployment = await h.call('POST', `${v1}/deployments?deploymentId=${modelId}-dep`, {
    body: { baseModel: `accounts/${account}/models/${modelId}`, acceleratorType: 'GPUX_H100_80GB', minReplicaCount: 1 },
  });
  expect(deployment.status, JSON.stringify(deployment.body)).toBe(200);
}

beforeAll(async () => {
  h = await startHarness({
    plugins: [
      memoryStorage(),
      queueWorkers({ pollIntervalMs: 20 }),
      apiKeyAuth({ cacheTtlMs: 0 }),
      gpuxRuntime({ provisioner: { kind: 'simulated', delays: { schedulingMs: 10, downloadingMs: 10, initializingMs: 10 } } }),
      servingOptions({ pollIntervalMs: 50 }),
    ],
  });
  await deploy('llama-8b', {});
  await deploy('vision', { supportsImageInput: true });
  await deploy('small', { contextLength: 160 });
  await Promise.all(['llama-8b-dep', 'vision-dep', 'small-dep'].map(waitReady));
  client = new OpenAI({ apiKey: adminKey, baseURL: `${h.url}/inference/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => h?.close());

describe('Responses API with the official client', () => {
  it('creates a response with every result field, retrieves and deletes it', async () => {
    const response = await client.responses.create({ model, input: 'Say hello to the harbor', instructions: 'Be brief', metadata: { suite: 'e2e' } });
    expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(response).toMatchObject({
      object: 'response', status: 'completed', model, error: null, incomplete_details: null, instructions: 'Be brief',
      previous_response_id: null, store: true, temperature: 1, top_p: 1, parallel_tool_calls: true, tool_choice: 'auto',
      tools: [], truncation: 'disabled', max_output_tokens: null, max_tool_calls: null, user: null, metadata: { suite: 'e2e' },
      text: { format: { type: 'text' } }, reasoning: { effort: null, summary: null },
    });
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', id: expect.stringMatching(/^msg_[0-9a-f]{32}$/) });
    expect(response.output_text.length).toBeGreaterThan(0);
    const usage = response.usage as unknown as Record<string, number>;
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.input_tokens! + usage.output_tokens!);
    expect(usage.prompt_tokens).toBe(usage.input_tokens);
    expect(usage.completion_tokens).toBe(usage.output_tokens);

    const retrieved = await client.responses.retrieve(response.id);
    expect(retrieved.id).toBe(response.id);
    expect(retrieved.output_text).toBe(response.output_text);

    const deleted = await h.call('DELETE', `/inference/v1/responses/${response.id}`);
    expect(deleted).toMatchObject({ status: 200, body: { message: 'Response deleted successfully' } });
    const gone = await rejection(() => client.responses.retrieve(response.id));
    expect(gone.status).toBe(404);
    expect(gone.error).toMatchObject({ type: 'not_found_error', message: expect.stringContaining(response.id) });
    expect((await rejection(() => client.responses.delete(response.id))).status).toBe(404);
  });

  it('continues a conversation with previous_response_id, at once, over three turns', async () => {
    const first = await client.responses.create({ model, input: 'My ship is called Aurora', instructions: 'Remember names' });
    const second = await client.responses.create({ model, input: 'What is my ship called?', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.instructions).toBeNull();
    const third = await client.responses.create({ model, input: [{ role: 'user', content: 'Thanks' }], previous_response_id: second.id });
    expect(third.status).toBe('completed');
    // The earlier turns were in the prompt: more input tokens each turn.
    expect(third.usage!.input_tokens).toBeGreaterThan(second.usage!.input_tokens);
    expect(second.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens);

    const items = await client.responses.inputItems.list(third.id, { order: 'asc' });
    expect(items.data.map((item) => item.type === 'message' ? item.role : item.type)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    const newestFirst = await client.responses.inputItems.list(third.id, { limit: 2 });
    expect(newestFirst.data).toHaveLength(2);
    expect(newestFirst.has_more).toBe(true);
    expect(newestFirst.data[0]!.id).toBe(items.data[4]!.id);
  });

  it('runs a function tool round trip', async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [{
      type: 'function', name: 'get_weather', description: 'Weather of a city', strict: false,
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    }];
    const first = await client.responses.create({ model, input: 'Call get_weather for Paris', tools });
    expect(first.tools).toEqual([{ type: 'function', name: 'get_weather', description: 'Weather of a city', strict: false, parameters: tools[0]!.parameters }]);
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', status: 'completed', id: expect.stringMatching(/^fc_/), call_id: expect.stringMatching(/^call_/) });
    expect(JSON.parse(call!.arguments)).toHaveProperty('city');

    const second = await client.responses.create({
      model, tools, previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call!.call_id, output: JSON.stringify({ temperature: 21 }) }],
    });
    expect(second.status).toBe('completed');
    expect(second.output_text.length).toBeGreaterThan(0);

    const forced = await client.responses.create({ model, input: 'Hello', tools, tool_choice: { type: 'function', name: 'get_weather' } });
    expect(forced.output.map((item) => item.type)).toEqual(['function_call']);
    const none = await client.responses.create({ model, input: 'Call get_weather', tools, tool_choice: 'none' });
    expect(none.output.map((item) => item.type)).toEqual(['message']);
  });

  it('stores nothing with store false', async () => {
    const before = await h.call<{ data: unknown[] }>('GET', '/inference/v1/responses?limit=100');
    const response = await client.responses.create({ model, input: 'Not stored', store: false });
    expect(response.id).toBeNull();
    expect((response as unknown as { store: boolean }).store).toBe(false);
    const after = await h.call<{ data: unknown[] }>('GET', '/inference/v1/responses?limit=100');
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  it('lists stored responses newest first with limit, after and before', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await client.responses.create({ model, input: `list ${i}` })).id);
    const page = await h.call<{ object: string; data: Array<{ id: string }>; has_more: boolean; first_id: string; last_id: string }>('GET', '/inference/v1/responses?limit=2');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ object: 'list', has_more: true, first_id: ids[2], last_id: ids[1] });
    expect(page.body.data.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const next = await h.call<{ data: Array<{ id: string }> }>('GET', `/inference/v1/responses?limit=1&after=${ids[1]}`);
    expect(next.body.data.map((r) => r.id)).toEqual([ids[0]]);
    const before = await h.call<{ data: Array<{ id: string }> }>('GET', `/inference/v1/responses?limit=20&before=${ids[0]}`);
    expect(before.body.data.slice(0, 2).map((r) => r.id)).toEqual([ids[2], ids[1]]);
    expect((await h.call('GET', '/inference/v1/responses?limit=0')).status).toBe(400);
  });

  it('streams a response from a deployment, raw and with the stream helper', async () => {
    const raw = await client.responses.create({ model, input: 'Stream to me', stream: true });
    const types: string[] = [];
    for await (const event of raw) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    const helper = client.responses.stream({ model, input: 'And again', previous_response_id: null });
    const final = await helper.finalResponse();
    expect(final.output_text.length).toBeGreaterThan(0);
    expect((await client.responses.retrieve(final.id)).output_text).toBe(final.output_text);
  });

  it('routes model#deployment as chat completions do, whole and streamed', async () => {
    const short = `${model}#llama-8b-dep`;
    const chat = await h.call('POST', '/inference/v1/chat/completions', { body: { model: short, messages: [{ role: 'user', content: 'Say hello' }] } });
    expect(chat.status, JSON.stringify(chat.body)).toBe(200);
    const response = await client.responses.create({ model: short, input: 'Say hello' });
    expect(response).toMatchObject({ status: 'completed', model: short, error: null });
    expect(response.output_text.length).toBeGreaterThan(0);
    const full = `${model}#accounts/${account}/deployments/llama-8b-dep`;
    const final = await client.responses.stream({ model: full, input: 'Say hello' }).finalResponse();
    expect(final).toMatchObject({ status: 'completed', model: full, error: null });
    expect(final.output_text.length).toBeGreaterThan(0);
  });

  it('stops at max_output_tokens with status incomplete', async () => {
    const response = await client.responses.create({ model, input: 'Tell me a long story', max_output_tokens: 4 });
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 4 });
    expect(response.usage!.output_tokens).toBe(4);
  });

  it('truncates the oldest items with truncation auto and refuses with disabled', async () => {
    const words = (prefix: string) => Array.from({ length: 80 }, (_, i) => `${prefix}${i}`).join(' ');
    const first = await client.responses.create({ model: small, input: words('a'), max_output_tokens: 8 });
    const refused = await rejection(() => client.responses.create({ model: small, input: words('b'), previous_response_id: first.id }));
    expect(refused.status).toBe(400);
    expect(refused).toMatchObject({ code: 'context_length_exceeded', param: 'input', type: 'invalid_request_error' });
    const truncated = await client.responses.create({ model: small, input: words('b'), previous_response_id: first.id, truncation: 'auto', max_output_tokens: 8 });
    expect(truncated.truncation).toBe('auto');
    expect(['completed', 'incomplete']).toContain(truncated.status);
  });

  it('takes images only for models that support image input', async () => {
    const input: OpenAI.Responses.ResponseInput = [{
      role: 'user',
      content: [{ type: 'input_text', text: 'What is in this picture?' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' }],
    }];
    const refused = await rejection(() => client.responses.create({ model, input }));
    expect(refused).toMatchObject({ status: 400, param: 'input' });
    const answered = await client.responses.create({ model: vision, input });
    expect(answered.status).toBe('completed');
  });

  it('answers invalid requests with 400 in the inference error format', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model, input: 'x', temperature: 3 }, 'temperature'],
      [{ model, input: 'x', top_p: -1 }, 'top_p'],
      [{ model, input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
      [{ model, input: 'x', max_tool_calls: 0 }, 'max_tool_calls'],
      [{ model, input: 'x', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
      [{ model, input: 'x', tool_choice: 'required' }, 'tool_choice'],
      [{ model, input: 'x', truncation: 'never' }, 'truncation'],
      [{ model, input: 'x', background: true, store: false }, 'store'],
      [{ model, input: 'x', tools: [{ type: 'mcp', server_label: 'x', server_url: 'https://example.com/mcp' }] }, 'tools[0].type'],
      [{ model: 'llama', input: 'x' }, 'model'],
      [{ input: 'x' }, 'model'],
      [{ model }, 'input'],
      [{ model, input: [{ type: 'function_call_output', call_id: 'call_x', output: 'y' }] }, 'input[0].call_id'],
      [{ model, input: 'x', background: true, stream: true }, 'stream'],
    ];
    for (const [body, param] of cases) {
      const r = await h.call<{ error: Record<string, unknown> }>('POST', '/inference/v1/responses', { body });
      expect(r.status, `${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param, message: expect.any(String), code: expect.any(String) });
    }
    const mcp = await h.call<{ error: { message: string } }>('POST', '/inference/v1/responses', { body: cases[8]![0] });
    // This gateway has no MCP plugin: the refusal names the plugin that serves these tools.
    expect(mcp.body.error.message).toContain('@berth/plugin-tools-mcp');
    const notJson = await h.call('POST', '/inference/v1/responses', { raw: '{"model":', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
  });

  it('answers unknown models, unknown and foreign response ids with 404', async () => {
    expect((await h.call('POST', '/inference/v1/responses', { body: { model: `accounts/${account}/models/none`, input: 'x' } })).status).toBe(404);
    const missing = await h.call<{ error: Record<string, unknown> }>('POST', '/inference/v1/responses', {
      body: { model, input: 'x', previous_response_id: 'resp_0123456789abcdef0123456789abcdef' },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found_error', param: 'previous_response_id' });

    const mine = await client.responses.create({ model, input: 'private' });
    const services = h.gateway.resolve(coreServicesToken);
    const ctx = systemContext('test');
    await services.users.create(ctx, 'other', { role: 'admin' }, 'root');
    const otherKey = (await h.gateway.resolve(apiKeyManagerToken).create(ctx, 'accounts/other/users/root', {})).key;
    const other = new OpenAI({ apiKey: otherKey, baseURL: `${h.url}/inference/v1`, maxRetries: 0 });
    expect((await rejection(() => other.responses.retrieve(mine.id))).status).toBe(404);
    expect((await rejection(() => other.responses.delete(mine.id))).status).toBe(404);
    expect((await rejection(() => other.responses.inputItems.list(mine.id))).status).toBe(404);
    expect((await rejection(() => other.responses.create({ model, input: 'x', previous_response_id: mine.id }))).status).toBe(404);
    const background = await client.responses.create({ model, input: 'private work', background: true });
    expect((await rejection(() => other.responses.cancel(background.id))).status).toBe(404);
    expect((await h.call('GET', '/inference/v1/responses', { key: null })).status).toBe(401);
  });

  it('documents the routes in /openapi.json', async () => {
    const doc = await h.call<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths['/inference/v1/responses']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.body.paths['/inference/v1/responses/{response_id}']!).sort()).toEqual(['delete', 'get']);
    expect(doc.body.paths['/inference/v1/responses/{response_id}/cancel']).toHaveProperty('post');
    expect(doc.body.paths['/inference/v1/responses/{response_id}/input_items']).toHaveProperty('get');
  });

  it('runs a background response on the queue workers: queued at once, polled with retrieve until completed', async () => {
    const created = await client.responses.create({ model, input: 'Describe the harbor at dawn', background: true, metadata: { mode: 'background' }, max_output_tokens: 64 });
    expect(created).toMatchObject({ status: 'queued', background: true, store: true, output: [], completed_at: null, metadata: { mode: 'background' }, max_output_tokens: 64 });
    let polled = created;
    for (let i = 0; i < 500 && (polled.status === 'queued' || polled.status === 'in_progress'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      polled = await client.responses.retrieve(created.id);
    }
    expect(['completed', 'incomplete']).toContain(polled.status);
    expect(polled).toMatchObject({ id: created.id, background: true, metadata: { mode: 'background' }, created_at: created.created_at });
    expect(polled.output_text.length).toBeGreaterThan(0);
    expect((polled.usage as unknown as Record<string, number>).output_tokens).toBeGreaterThan(0);
    // Finished: a cancel answers it unchanged.
    const cancelled = await client.responses.cancel(created.id);
    expect(cancelled).toMatchObject({ id: created.id, status: polled.status, output: polled.output, usage: polled.usage });
    expect((await h.call('GET', `/inference/v1/responses/${created.id}`)).body).toEqual((await h.call('POST', `/inference/v1/responses/${created.id}/cancel`)).body);
    // It continues like any stored response.
    const next = await client.responses.create({ model, input: 'And at dusk?', previous_response_id: created.id });
    expect(next.status).toBe('completed');
  });

  it('cancels background responses only: 400 for a foreground response, 404 for an unknown id', async () => {
    const foreground = await client.responses.create({ model, input: 'x' });
    const refused = await rejection(() => client.responses.cancel(foreground.id));
    expect(refused).toMatchObject({ status: 400, type: 'invalid_request_error' });
    expect(refused.message).toContain('Only responses created with background=true can be cancelled');
    expect((await rejection(() => client.responses.cancel('resp_0123456789abcdef0123456789abcdef'))).status).toBe(404);
    expect((await h.call('POST', '/inference/v1/responses/resp_x/cancel', { key: null })).status).toBe(401);
  });
});
