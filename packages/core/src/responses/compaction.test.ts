import { beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStorage } from '../testing/index.js';
import { compactionShape, shapeProblems } from '../testing/open-responses-conformance.js';
import type { JsonObject } from '../contracts/json.js';
import { systemContext } from '../contracts/request-context.js';
import { unavailable } from '../errors/index.js';
import { compactionHeading } from './chat-translation.js';
import { decodeCompaction, encodeCompaction } from './compaction-token.js';
import { compactionPrompt, parseCompactRequest, summaryTokens } from './compaction.js';
import { callerContext, fixtureModel, responsesTestBed, type EngineClient } from './responses-fixtures.js';
import type { ResponsesService } from './responses-service.js';
import type { CompactionItem, ResponseObject } from './response-types.js';

const ctx = callerContext();
let bed: { storage: MemoryStorage; client: EngineClient; service: ResponsesService };
beforeEach(async () => {
  bed = await responsesTestBed();
});
const compact = (body: unknown, caller = ctx) => bed.service.compact(caller, body);
const sentMessages = () => bed.client.bodies.at(-1)!.messages as Array<{ role: string; content: unknown }>;

/** The answer text of a response's messages. */
function textOf(response: ResponseObject): string {
  const parts = response.output.flatMap((item) => (item.type === 'message' ? item.content : []));
  return parts.map((part) => (part.type === 'output_text' ? part.text : '')).join('');
}

const summaryIn = (item: unknown): string | undefined => decodeCompaction((item as CompactionItem).encrypted_content);

async function setModel(fields: JsonObject): Promise<void> {
  const stored = await bed.storage.resources.get(systemContext(), fixtureModel);
  await bed.storage.resources.update(systemContext(), fixtureModel, { ...stored!.data, ...fields }, stored!.etag);
}

describe('compaction content', () => {
  it('round-trips a summary and refuses content the gateway did not make', () => {
    const content = encodeCompaction('The user is Ada; she asked about ships. ✓');
    expect(content).toMatch(/^berth\.compaction\.v1\.[A-Za-z0-9_-]+$/);
    expect(decodeCompaction(content)).toBe('The user is Ada; she asked about ships. ✓');
    for (const other of ['gAAAAABpM0Yj-x=', 'berth.compaction.v1.', 'berth.compaction.v1.e30', 'berth.compaction.v1.!!', `berth.compaction.v1.${Buffer.from('[1]').toString('base64url')}`]) {
      expect(decodeCompaction(other)).toBeUndefined();
    }
  });
});

describe('compact requests', () => {
  it('take model, input, previous_response_id and instructions, and refuse the rest with the parameter named', () => {
    expect(parseCompactRequest({ model: fixtureModel, input: 'hi', instructions: 'Be brief', prompt_cache_key: 'k' })).toMatchObject({
      model: fixtureModel, previousResponseId: null, instructions: 'Be brief', input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    });
    expect(parseCompactRequest({ model: fixtureModel, previous_response_id: 'resp_1', input: null })).toMatchObject({ input: [], previousResponseId: 'resp_1' });
    const cases: Array<[unknown, string | undefined, string]> = [
      [[], undefined, 'INVALID_TYPE'],
      [{ input: 'x' }, 'model', 'MISSING_REQUIRED_PARAMETER'],
      [{ model: 'gpt-5', input: 'x' }, 'model', 'INVALID_VALUE'],
      [{ model: fixtureModel }, 'input', 'MISSING_REQUIRED_PARAMETER'],
      [{ model: fixtureModel, input: [] }, 'input', 'MISSING_REQUIRED_PARAMETER'],
      [{ model: fixtureModel, input: 'x', stream: true }, 'stream', 'UNKNOWN_PARAMETER'],
      [{ model: fixtureModel, input: 'x', instructions: 3 }, 'instructions', 'INVALID_TYPE'],
      [{ model: fixtureModel, input: 'x', service_tier: 'gold' }, 'service_tier', 'UNSUPPORTED_VALUE'],
      [{ model: fixtureModel, input: [{ type: 'compaction' }] }, 'input[0].encrypted_content', 'MISSING_REQUIRED_PARAMETER'],
      [{ model: fixtureModel, input: [{ type: 'compaction', encrypted_content: 'gAAAA-opaque' }] }, 'input[0].encrypted_content', 'INVALID_VALUE'],
    ];
    for (const [body, field, reason] of cases) {
      expect(() => parseCompactRequest(body), JSON.stringify(body)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field, reason }));
    }
  });
});

describe('compacting a conversation', () => {
  it('answers the user messages then one compaction item holding the model summary, with usage', async () => {
    const input = [
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'My ship is called Aurora' },
      { role: 'assistant', content: 'A fine name for a ship.' },
      { type: 'function_call', call_id: 'call_1', name: 'harbor', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Oslo' },
      { role: 'user', content: [{ type: 'input_text', text: 'Where is she moored?' }] },
    ];
    const compacted = await compact({ model: fixtureModel, input, instructions: 'Summaries in English' });
    expect(shapeProblems(compacted, compactionShape)).toEqual([]);
    expect(compacted).toMatchObject({ object: 'response.compaction', id: expect.stringMatching(/^resp_[0-9a-f]{32}$/) });
    expect(compacted.output.map((item) => (item.type === 'message' ? `${item.role}:${item.content.map((p) => (p.type === 'input_text' ? p.text : '')).join('')}` : item.type)))
      .toEqual(['user:My ship is called Aurora', 'user:Where is she moored?', 'compaction']);
    const compaction = compacted.output[2]!;
    expect(compaction.id).toMatch(/^cmp_[0-9a-f]{32}$/);

    // One completion: the instructions, the conversation, then the compaction prompt; the summary is its answer.
    expect(bed.client.bodies).toHaveLength(1);
    const sent = bed.client.bodies[0]!;
    expect(sent.max_tokens).toBe(summaryTokens);
    const messages = sent.messages as Array<{ role: string; content: unknown }>;
    expect(messages[0]).toEqual({ role: 'system', content: 'Summaries in English' });
    expect(messages.map((m) => m.role)).toEqual(['system', 'system', 'user', 'assistant', 'tool', 'user', 'user']);
    expect(messages.at(-1)).toEqual({ role: 'user', content: compactionPrompt });
    const answer = await bed.client.complete(ctx, { target: { accountId: 'acme', model: fixtureModel, deployment: 'd' }, body: sent });
    const expected = answer.ok ? (answer.completion.choices as Array<{ message: { content: string } }>)[0]!.message.content : '';
    expect(expected.length).toBeGreaterThan(0);
    expect(summaryIn(compaction)).toBe(expected);
    const usage = answer.ok ? (answer.completion.usage as { prompt_tokens: number; completion_tokens: number }) : undefined;
    expect(compacted.usage).toMatchObject({ input_tokens: usage!.prompt_tokens, output_tokens: usage!.completion_tokens, prompt_tokens: usage!.prompt_tokens });
  });

  it('compacts a stored conversation by previous_response_id, in the caller account only, and its output continues it', async () => {
    const first = await bed.service.create(ctx, { model: fixtureModel, input: 'My ship is called Aurora' });
    const second = await bed.service.create(ctx, { model: fixtureModel, input: 'And my dog is Rex', previous_response_id: first.id });
    const compacted = await compact({ model: fixtureModel, previous_response_id: second.id, input: 'Keep it short' });
    expect(compacted.output.map((item) => item.type === 'message' ? item.role : item.type)).toEqual(['user', 'user', 'user', 'compaction']);
    const summarised = sentMessages();
    expect(summarised.slice(0, 4)).toEqual([
      { role: 'user', content: 'My ship is called Aurora' }, { role: 'assistant', content: textOf(first) },
      { role: 'user', content: 'And my dog is Rex' }, { role: 'assistant', content: textOf(second) },
    ]);
    await expect(compact({ model: fixtureModel, previous_response_id: second.id }, callerContext('globex')))
      .rejects.toMatchObject({ code: 'NOT_FOUND', field: 'previous_response_id' });

    // The compacted output is the next response's input: the summary replaces the answers it summarised.
    const next = await bed.service.create(ctx, { model: fixtureModel, input: [...compacted.output, { role: 'user', content: 'What is my ship called?' }] });
    expect(next.status).toBe('completed');
    const sent = sentMessages();
    expect(sent).toEqual([
      { role: 'user', content: 'My ship is called Aurora' }, { role: 'user', content: 'And my dog is Rex' }, { role: 'user', content: 'Keep it short' },
      { role: 'user', content: `${compactionHeading}\n\n${summaryIn(compacted.output[3])!}` },
      { role: 'user', content: 'What is my ship called?' },
    ]);
    // Stored with the compaction item; a later compaction summarises the earlier summary and keeps one compaction item.
    const again = await compact({ model: fixtureModel, previous_response_id: next.id });
    expect(again.output.filter((item) => item.type === 'compaction')).toHaveLength(1);
    expect(JSON.stringify(bed.client.bodies.at(-1)!.messages)).toContain(compactionHeading);
  });

  it('drops the oldest items to leave room for the summary when the conversation is long', async () => {
    await setModel({ contextLength: 200 });
    const long = (prefix: string) => Array.from({ length: 60 }, (_, i) => `${prefix}${i}`).join(' ');
    const compacted = await compact({ model: fixtureModel, input: [{ role: 'user', content: long('a') }, { role: 'user', content: long('b') }, { role: 'user', content: 'short' }] });
    const sent = bed.client.bodies.at(-1)!;
    expect(sent.max_tokens).toBe(50);
    expect((sent.messages as Array<{ content: unknown }>).map((m) => m.content)).toEqual([long('b'), 'short', compactionPrompt]);
    // Every user message is still kept in the answer.
    expect(compacted.output).toHaveLength(4);
    await expect(compact({ model: fixtureModel, input: long('c') + long('d') + long('e') }))
      .rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'CONTEXT_LENGTH_EXCEEDED', field: 'input' });
  });

  it('refuses images for a model without image input, an unknown model, and a caller without a key; fails when the model cannot answer', async () => {
    const image = [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/cat.png' }] }];
    await expect(compact({ model: fixtureModel, input: image })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'input' });
    await expect(compact({ model: 'accounts/acme/models/other', input: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(compact({ model: fixtureModel, input: 'x' }, systemContext())).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    bed.client.scripted.push(unavailable('no replica is ready'));
    await expect(compact({ model: fixtureModel, input: 'x' })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    bed.client.scripted.push({ ok: false, status: 400, error: { message: 'bad temperature', type: 'invalid_request_error', param: 'temperature', code: null } });
    await expect(compact({ model: fixtureModel, input: 'x' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'bad temperature' });
    bed.client.scripted.push({ ok: true, completion: { choices: [] } });
    await expect(compact({ model: fixtureModel, input: 'x' })).rejects.toMatchObject({ code: 'UNAVAILABLE', reason: 'BAD_UPSTREAM_ANSWER' });
  });
});
