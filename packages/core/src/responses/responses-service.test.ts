import { beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStorage } from '../testing/index.js';
import { systemContext } from '../contracts/request-context.js';
import { callerContext, fixtureModel, responsesTestBed, type EngineClient } from './responses-fixtures.js';
import type { ResponsesService } from './responses-service.js';
import type { ResponseObject } from './response-types.js';

let storage: MemoryStorage;
let client: EngineClient;
let service: ResponsesService;
const ctx = callerContext();

beforeEach(async () => {
  ({ storage, client, service } = await responsesTestBed());
});

const textOf = (response: ResponseObject): string =>
  response.output.flatMap((item) => (item.type === 'message' ? item.content.map((p) => (p.type === 'output_text' ? p.text : '')) : [])).join('');

describe('ResponsesService.create', () => {
  it('answers with every result field and the settings echoed', async () => {
    const response = await service.create(ctx, { model: fixtureModel, input: 'Say hello', metadata: { run: '1' } });
    expect(response).toMatchObject({
      id: expect.stringMatching(/^resp_[0-9a-f]{32}$/), object: 'response', status: 'completed', model: fixtureModel,
      error: null, incomplete_details: null, previous_response_id: null, instructions: null, max_output_tokens: null,
      max_tool_calls: null, parallel_tool_calls: true, reasoning: { effort: null, summary: null }, store: true, temperature: 1,
      text: { format: { type: 'text' } }, tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled', user: null,
      metadata: { run: '1' }, background: false, service_tier: 'default',
    });
    expect(response.created_at).toBeGreaterThan(1_700_000_000);
    expect(response.completed_at).toBeGreaterThanOrEqual(response.created_at);
    expect(response.output[0]).toMatchObject({ id: expect.stringMatching(/^msg_[0-9a-f]{32}$/), type: 'message', role: 'assistant', status: 'completed' });
    expect(textOf(response).length).toBeGreaterThan(0);
    const { usage } = response;
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.input_tokens).toBe(usage.prompt_tokens);
    expect(usage.output_tokens).toBe(usage.completion_tokens);
  });

  it('stores nothing with store false and answers id null', async () => {
    const response = await service.create(ctx, { model: fixtureModel, input: 'hi', store: false });
    expect(response.id).toBeNull();
    expect(response.store).toBe(false);
    expect((await service.list(ctx, {})).data).toEqual([]);
  });

  it('continues a stored conversation with its input and output but not its instructions', async () => {
    const first = await service.create(ctx, { model: fixtureModel, input: 'My name is Ada', instructions: 'Answer in French' });
    const second = await service.create(ctx, { model: fixtureModel, input: 'What is my name?', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.instructions).toBeNull();
    expect(client.bodies[1]!.messages).toEqual([
      { role: 'user', content: 'My name is Ada' },
      { role: 'assistant', content: textOf(first) },
      { role: 'user', content: 'What is my name?' },
    ]);
    const third = await service.create(ctx, { model: fixtureModel, input: 'And again?', previous_response_id: second.id, instructions: 'Be brief' });
    expect((client.bodies[2]!.messages as unknown[]).length).toBe(6);
    expect((client.bodies[2]!.messages as unknown[])[0]).toEqual({ role: 'system', content: 'Be brief' });
    const items = await service.inputItems(ctx, third.id!, { order: 'asc' });
    expect(items.data.map((i) => i.type === 'message' && i.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(items).toMatchObject({ object: 'list', has_more: false, first_id: items.data[0]!.id, last_id: items.data[4]!.id });
  });

  it('answers an unknown or foreign previous_response_id as not found', async () => {
    const mine = await service.create(ctx, { model: fixtureModel, input: 'hi' });
    await expect(service.create(ctx, { model: fixtureModel, input: 'x', previous_response_id: 'resp_00000000000000000000000000000000' }))
      .rejects.toMatchObject({ code: 'NOT_FOUND', field: 'previous_response_id' });
    const other = callerContext('globex');
    await expect(service.create(other, { model: fixtureModel, input: 'x', previous_response_id: mine.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.get(other, mine.id!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.delete(other, mine.id!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await service.get(ctx, mine.id!)).id).toBe(mine.id);
  });

  it('completes a function tool round trip over previous_response_id', async () => {
    const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const first = await service.create(ctx, { model: fixtureModel, input: 'Use get_weather for Paris', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    if (call?.type !== 'function_call') throw new Error('no call');
    const second = await service.create(ctx, {
      model: fixtureModel, previous_response_id: first.id, tools,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temperature":21}' }],
    });
    expect(second.status).toBe('completed');
    expect(second.output[0]).toMatchObject({ type: 'message' });
    expect(client.bodies[1]!.messages).toEqual([
      { role: 'user', content: 'Use get_weather for Paris' },
      { role: 'assistant', content: null, tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: call.arguments } }] },
      { role: 'tool', tool_call_id: call.call_id, content: '{"temperature":21}' },
    ]);
    await expect(service.create(ctx, { model: fixtureModel, input: [{ type: 'function_call_output', call_id: 'call_unknown', output: 'x' }] }))
      .rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'input[0].call_id' });
  });

  it('refuses images for a model without supportsImageInput, and sends them to one with it', async () => {
    const image = { model: fixtureModel, input: [{ role: 'user', content: [{ type: 'input_text', text: 'what is this?' }, { type: 'input_image', image_url: 'https://example.com/cat.png' }] }] };
    await expect(service.create(ctx, image)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'input' });
    const stored = await storage.resources.get(systemContext(), fixtureModel);
    await storage.resources.update(systemContext(), fixtureModel, { ...stored!.data, supportsImageInput: true }, stored!.etag);
    const response = await service.create(ctx, image);
    expect(response.status).toBe('completed');
    expect(client.bodies.at(-1)!.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'auto' } }] },
    ]);
  });

  it('truncates to the model context length with truncation auto and refuses with disabled', async () => {
    const stored = await storage.resources.get(systemContext(), fixtureModel);
    await storage.resources.update(systemContext(), fixtureModel, { ...stored!.data, contextLength: 120 }, stored!.etag);
    const long = Array.from({ length: 70 }, (_, i) => `w${i}`).join(' ');
    const first = await service.create(ctx, { model: fixtureModel, input: long, max_output_tokens: 5 });
    await expect(service.create(ctx, { model: fixtureModel, input: long, previous_response_id: first.id }))
      .rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'CONTEXT_LENGTH_EXCEEDED', field: 'input' });
    const other = Array.from({ length: 70 }, (_, i) => `v${i}`).join(' ');
    const truncated = await service.create(ctx, { model: fixtureModel, input: other, previous_response_id: first.id, truncation: 'auto' });
    expect(truncated.status).toMatch(/completed|incomplete/);
    expect(client.bodies.at(-1)!.messages).toEqual([{ role: 'assistant', content: textOf(first) }, { role: 'user', content: other }]);
  });

  it('routes a model#deployment to the target model and echoes the model as sent', async () => {
    const response = await service.create(ctx, { model: `${fixtureModel}#d`, input: 'Say hello' });
    expect(response).toMatchObject({ status: 'completed', model: `${fixtureModel}#d` });
    expect(client.bodies[0]!.model).toBe(fixtureModel);
  });

  it('sends the conversation prepare fitted on the first turn, without fitting it again', async () => {
    const prepared = await service.prepare(ctx, { model: fixtureModel, input: 'Say hello', instructions: 'Be brief' });
    expect(prepared.fitted.messages).toEqual([{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Say hello' }]);
    await service.run(ctx, prepared);
    expect(client.bodies[0]!.messages).toBe(prepared.fitted.messages);
  });

  it('stores a failed response when the model cannot be reached', async () => {
    client.scripted.push({ ok: false, status: 502, error: { message: 'bad gateway', type: 'server_error', param: null, code: null } });
    const failed = await service.create(ctx, { model: fixtureModel, input: 'hi' });
    expect(failed).toMatchObject({ status: 'failed', completed_at: null, error: { type: 'server_error', code: 'upstream_error' }, output: [] });
    expect((await service.get(ctx, failed.id!)).status).toBe('failed');
  });

  it('refuses stream without a streaming caller, background without the storage, unknown models and missing callers', async () => {
    await expect(service.create(ctx, { model: fixtureModel, input: 'x', stream: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'stream' });
    await expect(service.create(ctx, { model: fixtureModel, input: 'x', background: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'background' });
    await expect(service.create(ctx, { model: 'accounts/acme/models/other', input: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.create(systemContext(), { model: fixtureModel, input: 'x' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('ResponsesService storage operations', () => {
  it('lists newest first with limit, after and before', async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) created.push((await service.create(ctx, { model: fixtureModel, input: `n${i}` })).id!);
    const newest = [...created].reverse();
    const all = await service.list(ctx, {});
    expect(all).toMatchObject({ object: 'list', has_more: false, first_id: newest[0], last_id: newest[4] });
    expect(all.data.map((r) => r.id)).toEqual(newest);
    const page = await service.list(ctx, { limit: '2' });
    expect(page.data.map((r) => r.id)).toEqual(newest.slice(0, 2));
    expect(page.has_more).toBe(true);
    const next = await service.list(ctx, { limit: '2', after: page.last_id! });
    expect(next.data.map((r) => r.id)).toEqual(newest.slice(2, 4));
    const before = await service.list(ctx, { limit: '2', before: newest[3] });
    expect(before.data.map((r) => r.id)).toEqual(newest.slice(1, 3));
    expect(before.has_more).toBe(true);
    expect((await service.list(callerContext('globex'), {})).data).toEqual([]);
    await expect(service.list(ctx, { limit: '0' })).rejects.toMatchObject({ field: 'limit' });
    await expect(service.list(ctx, { limit: 'x' })).rejects.toMatchObject({ field: 'limit' });
    expect((await service.list(ctx, { limit: '1000' })).data).toHaveLength(5);
    await expect(service.list(ctx, { after: 'resp_missing' })).rejects.toMatchObject({ code: 'NOT_FOUND', field: 'after' });
  });

  it('deletes, after which the response is not found', async () => {
    const response = await service.create(ctx, { model: fixtureModel, input: 'hi' });
    expect(await service.delete(ctx, response.id!)).toEqual({ message: 'Response deleted successfully' });
    await expect(service.get(ctx, response.id!)).rejects.toMatchObject({ code: 'NOT_FOUND', message: `Response with id '${response.id}' not found.` });
    await expect(service.delete(ctx, response.id!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.get(ctx, '../models/m')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('pages input items', async () => {
    const response = await service.create(ctx, { model: fixtureModel, input: [1, 2, 3, 4].map((n) => ({ role: 'user', content: `m${n}` })) });
    const desc = await service.inputItems(ctx, response.id!, { limit: '3' });
    expect(desc.data.map((i) => i.type === 'message' && i.content[0]!.type === 'input_text' && i.content[0]!.text)).toEqual(['m4', 'm3', 'm2']);
    expect(desc.has_more).toBe(true);
    const rest = await service.inputItems(ctx, response.id!, { after: desc.last_id! });
    expect(rest.data).toHaveLength(1);
    expect(rest.has_more).toBe(false);
    const before = await service.inputItems(ctx, response.id!, { before: rest.first_id!, limit: '1' });
    expect(before.data.map((i) => i.id)).toEqual([desc.last_id]);
    await expect(service.inputItems(ctx, response.id!, { order: 'sideways' })).rejects.toMatchObject({ field: 'order' });
    await expect(service.inputItems(ctx, response.id!, { after: 'msg_nope' })).rejects.toMatchObject({ field: 'after' });
  });

  it('refuses callers whose role has no inference', async () => {
    const noRole = { requestId: 't', principal: { userName: 'accounts/acme/users/x', accountId: 'acme', role: 'unknown' as never } };
    await expect(service.list(noRole, {})).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });
});
