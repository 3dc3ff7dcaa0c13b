import { describe, expect, it } from 'vitest';
import { chatToolChoice, chatTools, fromChatCompletion, offeredFunctions, toChatMessages } from './chat-translation.js';
import { parseInput } from './response-input.js';
import { parseTools } from './response-tools.js';

describe('toChatMessages', () => {
  it('puts instructions first and maps each item to chat messages', () => {
    const items = parseInput([
      { role: 'developer', content: 'dev rules' },
      { role: 'user', content: [{ type: 'input_text', text: 'what is' }, { type: 'input_text', text: 'the weather?' }] },
      { role: 'assistant', content: 'let me look' },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_2', name: 'weather', arguments: '{"city":"Rome"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'rain' }, { type: 'input_image', image_url: 'https://example.com/r.png' }] },
      { type: 'reasoning', summary: [] },
    ]);
    expect(toChatMessages('be brief', items)).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'system', content: 'dev rules' },
      { role: 'user', content: 'what is\nthe weather?' },
      {
        role: 'assistant', content: 'let me look',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: 'rain' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/r.png', detail: 'auto' } }] },
    ]);
  });

  it('sends images as content parts', () => {
    const items = parseInput([{ role: 'user', content: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' }] }]);
    expect(toChatMessages(null, items)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'high' } }] },
    ]);
  });

  it('opens an assistant message for a call that follows a user message', () => {
    const items = parseInput([{ role: 'user', content: 'hi' }, { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }]);
    expect(toChatMessages(null, items)[1]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] });
  });
});

describe('tools', () => {
  it('offers declared function tools, then session functions', () => {
    const tools = parseTools([{ type: 'function', name: 'a', description: 'does a', parameters: { type: 'object' } }, { type: 'function', name: 'b' }], []);
    const functions = offeredFunctions(tools, [{ name: 'c' }]);
    expect(chatTools(functions)).toEqual([
      { type: 'function', function: { name: 'a', description: 'does a', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'b' } },
      { type: 'function', function: { name: 'c' } },
    ]);
  });

  it('maps tool_choice', () => {
    expect(chatToolChoice('auto')).toBeUndefined();
    expect(chatToolChoice('none')).toBe('none');
    expect(chatToolChoice('required')).toBe('required');
    expect(chatToolChoice({ type: 'function', name: 'a' })).toEqual({ type: 'function', function: { name: 'a' } });
  });
});

describe('fromChatCompletion', () => {
  const completion = (message: Record<string, unknown>, finish = 'stop', usage: Record<string, unknown> = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }) =>
    ({ choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }], usage }) as never;

  it('turns text into a message item', () => {
    const turn = fromChatCompletion(completion({ content: 'Hello there' }), false);
    expect(turn.finishReason).toBe('stop');
    expect(turn.usage).toEqual({ promptTokens: 5, completionTokens: 3, cachedTokens: 0, reasoningTokens: 0 });
    expect(turn.items).toEqual([
      { type: 'message', id: expect.stringMatching(/^msg_[0-9a-f]{32}$/), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] }] },
    ]);
  });

  it('marks a message cut at the limit incomplete', () => {
    expect(fromChatCompletion(completion({ content: 'Hel' }, 'length'), false).items[0]).toMatchObject({ status: 'incomplete' });
  });

  it('turns tool calls into function_call items without an empty message', () => {
    const turn = fromChatCompletion(completion({ content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] }, 'tool_calls'), false);
    expect(turn.items).toEqual([{ type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_9', name: 'f', arguments: '{"x":1}', status: 'completed' }]);
  });

  it('keeps only the calls the allowance leaves, counting the others, still without an empty message', () => {
    const calls = ['a', 'b', 'c'].map((name) => ({ id: `call_${name}`, type: 'function', function: { name, arguments: '{}' } }));
    const turn = fromChatCompletion(completion({ content: null, tool_calls: calls }, 'tool_calls'), false, 1);
    expect(turn.items).toEqual([expect.objectContaining({ type: 'function_call', call_id: 'call_a' })]);
    expect(turn.droppedCalls).toBe(2);
    const none = fromChatCompletion(completion({ content: null, tool_calls: calls }, 'tool_calls'), false, 0);
    expect(none).toMatchObject({ items: [], droppedCalls: 3 });
  });

  it('returns reasoning only when asked, and a refusal as a refusal part', () => {
    const withReasoning = completion({ content: 'answer', reasoning_content: 'thinking' }, 'stop', { prompt_tokens: 1, completion_tokens: 2, completion_tokens_details: { reasoning_tokens: 1 }, prompt_tokens_details: { cached_tokens: 1 } });
    expect(fromChatCompletion(withReasoning, false).items.map((i) => i.type)).toEqual(['message']);
    const turn = fromChatCompletion(withReasoning, true);
    expect(turn.items[0]).toMatchObject({ type: 'reasoning', id: expect.stringMatching(/^rs_/), content: [{ type: 'reasoning_text', text: 'thinking' }] });
    expect(turn.usage).toEqual({ promptTokens: 1, completionTokens: 2, cachedTokens: 1, reasoningTokens: 1 });
    expect(fromChatCompletion(completion({ content: null, refusal: 'no' }), false).items[0]).toMatchObject({ content: [{ type: 'refusal', refusal: 'no' }] });
  });

  it('throws on an answer without a message', () => {
    expect(() => fromChatCompletion({ choices: [] }, false)).toThrow();
  });
});
