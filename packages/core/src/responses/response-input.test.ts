import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/index.js';
import type { JsonValue } from '../contracts/json.js';
import { checkToolOutputs, hasImageInput, parseInput } from './response-input.js';

function paramOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'INVALID_ARGUMENT') return error.field;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('parseInput', () => {
  it('reads messages with string or part content, keeping given ids', () => {
    const items = parseInput([
      { role: 'system', content: 'rules' },
      { type: 'message', role: 'user', id: 'msg_mine', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'https://example.com/a.png' }] },
      { role: 'assistant', content: 'earlier answer' },
      { role: 'developer', content: [{ type: 'input_text', text: 'dev' }] },
    ]);
    expect(items.map((i) => i.type === 'message' && i.role)).toEqual(['system', 'user', 'assistant', 'developer']);
    expect(items[1]).toEqual({
      type: 'message', id: 'msg_mine', role: 'user', status: 'completed',
      content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' }],
    });
    expect(items[2]).toMatchObject({ content: [{ type: 'output_text', text: 'earlier answer', annotations: [], logprobs: [] }] });
    expect(items[0]!.id).toMatch(/^msg_[0-9a-f]{32}$/);
  });

  it('reads function calls, their outputs and reasoning items', () => {
    const items = parseInput([
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"temp":20}' },
      { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'also' }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thought' }] },
    ]);
    expect(items[0]).toMatchObject({ type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_1', name: 'get_weather', status: 'completed' });
    expect(items[1]).toMatchObject({ type: 'function_call_output', id: expect.stringMatching(/^fco_/), call_id: 'call_1', output: '{"temp":20}' });
    expect(items[2]).toMatchObject({ output: [{ type: 'input_text', text: 'also' }] });
    expect(items[3]).toEqual({ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thought' }], content: [], status: 'completed' });
  });

  it('accepts data URIs and refuses other image sources', () => {
    const ok = parseInput([{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' }] }]);
    expect(hasImageInput(ok)).toBe(true);
    const image = (part: JsonValue) => () => parseInput([{ role: 'user', content: [part] }]);
    expect(paramOf(image({ type: 'input_image', image_url: 'ftp://example.com/a.png' }))).toBe('input[0].content[0].image_url');
    expect(paramOf(image({ type: 'input_image', image_url: 'data:text/plain;base64,aGk=' }))).toBe('input[0].content[0].image_url');
    expect(paramOf(image({ type: 'input_image', file_id: 'file_1' }))).toBe('input[0].content[0].file_id');
    expect(paramOf(image({ type: 'input_image', image_url: 'https://example.com/a.png', detail: 'max' }))).toBe('input[0].content[0].detail');
    expect(paramOf(image({ type: 'input_file', file_id: 'f' }))).toBe('input[0].content[0].type');
  });

  it.each([
    [[{ content: 'no role' }], 'input[0].role'],
    [[{ role: 'tool', content: 'x' }], 'input[0].role'],
    [[{ role: 'user' }], 'input[0].content'],
    [[{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }], 'input[0].content[0].type'],
    [[{ role: 'assistant', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] }], 'input[0].content[0].type'],
    [[{ role: 'user', content: [{ type: 'input_text' }] }], 'input[0].content[0].text'],
    [[{ type: 'function_call', name: 'f', arguments: '{}' }], 'input[0].call_id'],
    [[{ type: 'function_call_output', call_id: 'c' }], 'input[0].output'],
    [[{ type: 'item_reference', id: 'msg_1' }], 'input[0].type'],
    [[{ type: 'web_search_call' }], 'input[0].type'],
    [['text'], 'input[0]'],
    [[{ role: 'user', content: 'x', status: 'done' }], 'input[0].status'],
  ])('refuses %j naming %s', (input, param) => {
    expect(paramOf(() => parseInput(input))).toBe(param);
  });
});

describe('checkToolOutputs', () => {
  const call = parseInput([{ type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' }]);
  const output = parseInput([{ type: 'function_call_output', call_id: 'call_1', output: 'ok' }]);

  it('accepts outputs of calls in the history or earlier in the input', () => {
    expect(() => checkToolOutputs(call, output)).not.toThrow();
    expect(() => checkToolOutputs([], [...call, ...output])).not.toThrow();
  });

  it('refuses an output no call asked for', () => {
    expect(paramOf(() => checkToolOutputs([], output))).toBe('input[0].call_id');
  });
});
