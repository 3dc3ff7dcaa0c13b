import { beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../contracts/json.js';
import { compactionShape, itemShape, responseShape, shapeProblems, streamProblems } from '../testing/open-responses-conformance.js';
import type { ResponseEventSink } from './response-events.js';
import { callerContext, fixtureModel, responsesTestBed, type EngineClient } from './responses-fixtures.js';
import type { ResponsesService } from './responses-service.js';

/**
 * Real responses and streams of the service, checked field by field against the Open Responses
 * specification's required fields (`@berth/core/testing`'s shapes).
 */
let client: EngineClient;
let service: ResponsesService;
const ctx = callerContext();
const weather = { type: 'function', name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

beforeEach(async () => {
  ({ client, service } = await responsesTestBed());
});

async function streamed(body: Record<string, unknown>): Promise<JsonObject[]> {
  const events: JsonObject[] = [];
  const sink: ResponseEventSink = { send: (event) => events.push(structuredClone(event)), ready: async () => {} };
  await service.run(ctx, await service.prepare(ctx, { model: fixtureModel, stream: true, ...body }), sink);
  return events;
}

describe('the shapes', () => {
  it('name what is missing, mistyped or null where the specification says a string', () => {
    expect(shapeProblems({ input_tokens: 1, output_tokens: 2 }, compactionShape)).toEqual(expect.arrayContaining(['$.id: missing', '$.usage: missing']));
    const reasoning = { id: 'r', object: 'response.compaction', created_at: 1, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
      output: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: null }] };
    expect(shapeProblems(reasoning, compactionShape)).toEqual(['$.output[0].encrypted_content: expected string, got null']);
    expect(streamProblems([{ type: 'response.output_text.delta', sequence_number: 0, item_id: 'm', output_index: 0, content_index: 0, delta: 'x' }]))
      .toEqual(['events[0].logprobs: missing', 'the stream ends with "response.output_text.delta"']);
    expect(streamProblems([{ type: 'response.mystery', sequence_number: 1 }])[0]).toContain('"response.mystery" is not one of');
  });
});

describe('Open Responses conformance of the service', () => {
  it('a text response carries every required field', async () => {
    const response = await service.create(ctx, { model: fixtureModel, input: [{ type: 'message', role: 'user', content: 'Say hello in exactly 3 words.' }] });
    expect(shapeProblems(response, responseShape)).toEqual([]);
    expect(response.status).toBe('completed');
  });

  it('a response with tools, a json_schema format, reasoning and a function call carries every required field', async () => {
    client.scripted.push({
      ok: true,
      completion: {
        choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, reasoning_content: 'think', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] } }],
        usage: { prompt_tokens: 5, completion_tokens: 3 },
      },
    });
    const response = await service.create(ctx, {
      model: fixtureModel, input: 'Weather in Oslo?', tools: [weather], reasoning: { effort: 'low' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' } } },
    });
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    expect(shapeProblems(response, responseShape)).toEqual([]);
    expect(response.text).toEqual({ format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, description: null, strict: false } });

    const next = await service.create(ctx, {
      model: fixtureModel, previous_response_id: response.id, tools: [weather],
      input: [{ type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: '21 degrees' }] }],
    });
    expect(shapeProblems(next, responseShape)).toEqual([]);
    const items = await service.inputItems(ctx, next.id!, {});
    expect(items.data.flatMap((item) => shapeProblems(item, itemShape))).toEqual([]);
  });

  it('a stream of text, and a stream of a function call, carry every required field in every event', async () => {
    const text = await streamed({ input: 'Count from 1 to 5.', text: { verbosity: 'low' } });
    expect(streamProblems(text)).toEqual([]);
    expect(text.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed', text: { verbosity: 'low' } } });
    // The reference engine calls a tool when the user names it.
    const call = await streamed({ input: "What's the weather like in San Francisco? Use get_weather.", tools: [weather] });
    expect(streamProblems(call)).toEqual([]);
    expect(call.map((e) => e.type)).toEqual(expect.arrayContaining(['response.function_call_arguments.delta', 'response.function_call_arguments.done']));
  });
});
