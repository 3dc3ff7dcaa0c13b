import { beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStorage } from '../testing/index.js';
import type { JsonObject } from '../contracts/json.js';
import { systemContext } from '../contracts/request-context.js';
import { unavailable } from '../errors/index.js';
import { ChatStreamTurn } from './chat-stream-turn.js';
import { ResponseEventWriter, type ResponseEventSink } from './response-events.js';
import { callerContext, fixtureModel, responsesTestBed, type EngineClient } from './responses-fixtures.js';
import type { ResponsesService } from './responses-service.js';

/** A sink that keeps a copy of every event. */
function collector(): ResponseEventSink & { events: JsonObject[]; types(): string[] } {
  const events: JsonObject[] = [];
  return { events, send: (event) => events.push(structuredClone(event)), ready: async () => {}, types: () => events.map((e) => String(e.type)) };
}

let storage: MemoryStorage;
let client: EngineClient;
let service: ResponsesService;
const ctx = callerContext();

beforeEach(async () => {
  ({ storage, client, service } = await responsesTestBed());
});

async function stream(body: Record<string, unknown>) {
  const sink = collector();
  const response = await service.run(ctx, await service.prepare(ctx, { model: fixtureModel, stream: true, ...body }), sink);
  return { sink, response };
}

describe('streamed responses', () => {
  it('sends the OpenAI event sequence for a text answer, numbered, ending with response.completed', async () => {
    const { sink, response } = await stream({ input: 'Say hello' });
    const types = sink.types();
    const deltas = types.filter((t) => t === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThan(3);
    expect(types).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      ...Array<string>(deltas).fill('response.output_text.delta'),
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    ]);
    expect(sink.events.map((e) => e.sequence_number)).toEqual(sink.events.map((_, i) => i));
    expect(sink.events.some((e) => 'error' in e)).toBe(false);
    const created = sink.events[0]!.response as JsonObject;
    expect(created).toMatchObject({ id: response.id, status: 'in_progress', output: [], usage: null });
    const text = sink.events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
    const message = response.output[0]!;
    expect(message.type === 'message' && message.content[0]?.type === 'output_text' && message.content[0].text).toBe(text);
    expect(sink.events[2]).toMatchObject({ output_index: 0, item: { id: message.id, type: 'message', status: 'in_progress', content: [] } });
    expect(sink.events.at(-1)).toMatchObject({ type: 'response.completed', response: { id: response.id, status: 'completed' } });
    expect(response.usage.output_tokens).toBe(deltas);
    expect((await service.get(ctx, response.id!)).output).toEqual(response.output);
  });

  it('streams a function call with its arguments', async () => {
    const { sink, response } = await stream({ input: 'call get_weather', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] });
    expect(sink.types()).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.function_call_arguments.delta',
      'response.function_call_arguments.done', 'response.output_item.done', 'response.completed',
    ]);
    const call = response.output[0]!;
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(sink.events[4]).toMatchObject({ name: 'get_weather', arguments: call.type === 'function_call' ? call.arguments : '' });
  });

  it('ends with response.incomplete at max_output_tokens', async () => {
    const { sink, response } = await stream({ input: 'Tell me a story', max_output_tokens: 3 });
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(sink.types().at(-1)).toBe('response.incomplete');
    expect(sink.events.find((e) => e.type === 'response.output_item.done')).toMatchObject({ item: { status: 'incomplete' } });
  });

  it('ends with response.failed, keeping what was streamed, when the stream breaks', async () => {
    client.breakStream = { afterChunks: 4, error: unavailable('the connection to the model replica failed', { reason: 'UPSTREAM_UNAVAILABLE' }) };
    const { sink, response } = await stream({ input: 'Say hello' });
    expect(response).toMatchObject({ status: 'failed', error: { type: 'server_error', code: 'upstream_unavailable' } });
    expect(response.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    expect(sink.types().at(-1)).toBe('response.failed');
    expect((await service.get(ctx, response.id!)).status).toBe('failed');
  });

  it('fails the stream for a request the engine refuses, and refuses a conversation too long before streaming', async () => {
    client.scripted.push({ ok: false, status: 400, error: { message: 'bad tools', type: 'invalid_request_error', param: 'tools', code: null } });
    const { sink, response } = await stream({ input: 'x' });
    expect(response).toMatchObject({ status: 'failed', error: { type: 'invalid_request_error', code: 'upstream_rejected', message: 'bad tools' } });
    expect(sink.types()).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    const stored = await storage.resources.get(systemContext(), fixtureModel);
    await storage.resources.update(systemContext(), fixtureModel, { ...stored!.data, contextLength: 10 }, stored!.etag);
    await expect(service.prepare(ctx, { model: fixtureModel, stream: true, input: 'far too long for ten tokens of context, really' }))
      .rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'CONTEXT_LENGTH_EXCEEDED' });
  });

  it('streams only the calls max_tool_calls allows, and stores what it streamed', async () => {
    const tools = ['lookup', 'search'].map((name) => ({ type: 'function', name, parameters: { type: 'object', properties: { q: { type: 'string' } } } }));
    const { sink, response } = await stream({ input: 'lookup and search', tools, max_tool_calls: 1 });
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_tool_calls' } });
    const added = sink.events.filter((e) => e.type === 'response.output_item.added').map((e) => e.item as JsonObject);
    const done = sink.events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ type: 'function_call' });
    expect(done).toEqual(response.output);
    expect(response.output).toHaveLength(1);
    expect(sink.events.at(-1)).toMatchObject({ type: 'response.incomplete', response: { output: response.output } });
    expect((await service.get(ctx, response.id!)).output).toEqual(response.output);
  });

  it('throws CANCELLED when the caller goes away mid-stream: no final event is sent and nothing is stored', async () => {
    const controller = new AbortController();
    const leaving = { ...ctx, signal: controller.signal };
    const sink = collector();
    const send = sink.send;
    // The caller leaves after the first text delta reached it.
    sink.send = (event) => {
      send(event);
      if (event.type === 'response.output_text.delta') controller.abort();
    };
    const prepared = await service.prepare(leaving, { model: fixtureModel, input: 'Tell me a long story', stream: true });
    await expect(service.run(leaving, prepared, sink)).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(sink.types()).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
    ]);
    expect((await service.list(ctx, {})).data).toEqual([]);
    await expect(service.get(ctx, prepared.id!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('ChatStreamTurn', () => {
  it('closes reasoning before text, text before calls, and builds the turn', () => {
    const sink = collector();
    const turn = new ChatStreamTurn(new ResponseEventWriter(sink), true);
    const chunk = (delta: JsonObject, finish: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason: finish }] });
    turn.push(chunk({ reasoning_content: 'think' }));
    turn.push(chunk({ content: 'Hi' }));
    turn.push(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }));
    turn.push(chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }));
    turn.push(chunk({}, 'tool_calls'));
    turn.push({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 } });
    const result = turn.finish();
    expect(result.finishReason).toBe('tool_calls');
    expect(result.usage).toMatchObject({ promptTokens: 5, completionTokens: 4 });
    expect(result.items.map((i) => i.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(result.items[2]).toMatchObject({ call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' });
    expect(sink.types()).toEqual([
      'response.output_item.added', 'response.content_part.added', 'response.reasoning_text.delta',
      'response.reasoning_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.delta',
      'response.function_call_arguments.done', 'response.output_item.done',
    ]);
    expect(sink.events.filter((e) => e.type === 'response.output_item.added').map((e) => e.output_index)).toEqual([0, 1, 2]);
  });

  it('answers an empty message for a turn with nothing in it, and a refusal whole', () => {
    const empty = new ChatStreamTurn(new ResponseEventWriter(collector()), false);
    expect(empty.finish().items).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: '' })] })]);
    const sink = collector();
    const refusing = new ChatStreamTurn(new ResponseEventWriter(sink), false);
    refusing.push({ choices: [{ index: 0, delta: { refusal: 'no' }, finish_reason: 'stop' }] });
    expect(refusing.finish().items[0]).toMatchObject({ content: [{ type: 'refusal', refusal: 'no' }] });
    expect(sink.types()).toContain('response.refusal.done');
  });
});
