import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/index.js';
import { generateCompletion } from './generate.js';
import { countTokens, tokenize } from './tokenizer.js';

const weatherTool = {
  name: 'get_weather',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } },
    required: ['city', 'unit'],
  },
};

describe('tokenizer', () => {
  it('splits into pieces that concatenate back to the text', () => {
    const text = '  Hello, world!  Supercalifragilistic 42 ';
    expect(tokenize(text).join('')).toBe(text);
    expect(tokenize('Hello, world!')).toEqual(['Hello', ',', ' world', '!']);
    expect(countTokens('abcdefghijkl')).toBe(2);
    expect(countTokens('')).toBe(0);
  });
});

describe('generateCompletion', () => {
  it('is deterministic in (model, prompt, seed) and varies with each', () => {
    const a = generateCompletion({ model: 'm', prompt: 'Tell me a story', seed: 1 });
    expect(generateCompletion({ model: 'm', prompt: 'Tell me a story', seed: 1 })).toEqual(a);
    expect(generateCompletion({ model: 'm', prompt: 'Tell me a story', seed: 2 }).text).not.toBe(a.text);
    expect(generateCompletion({ model: 'n', prompt: 'Tell me a story', seed: 1 }).text).not.toBe(a.text);
    expect(generateCompletion({ model: 'm', prompt: 'Tell me a tale', seed: 1 }).text).not.toBe(a.text);
    expect(a.finishReason).toBe('stop');
    expect(a.pieces.join('')).toBe(a.text);
    expect(a.usage).toEqual({ prompt_tokens: 4, completion_tokens: a.pieces.length, total_tokens: 4 + a.pieces.length });
    expect(a.usage.completion_tokens).toBeGreaterThanOrEqual(12);
  });

  it('stops at max tokens with finish reason length', () => {
    const r = generateCompletion({ model: 'm', prompt: 'hi', maxTokens: 3 });
    expect(r.finishReason).toBe('length');
    expect(r.usage.completion_tokens).toBe(3);
  });

  it('cuts at a stop sequence', () => {
    const full = generateCompletion({ model: 'm', prompt: 'hi' });
    const stop = full.pieces[3] as string;
    const r = generateCompletion({ model: 'm', prompt: 'hi', stop: [stop] });
    expect(r.finishReason).toBe('stop');
    expect(r.text).toBe(full.text.slice(0, full.text.indexOf(stop)));
  });

  it('rejects prompts longer than the context with context_length_exceeded', () => {
    const prompt = 'word '.repeat(100);
    const error = (() => {
      try {
        generateCompletion({ model: 'm', prompt, contextLength: 50 });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('INVALID_ARGUMENT');
    expect((error as GatewayError).reason).toBe('CONTEXT_LENGTH_EXCEEDED');
    expect(() => generateCompletion({ model: 'm', prompt: 'short', contextLength: 50, maxTokens: 50 })).toThrow(/maximum context length is 50/);
    const capped = generateCompletion({ model: 'm', prompt: 'one two three four five', contextLength: 8 });
    expect(capped.usage.total_tokens).toBeLessThanOrEqual(8);
    expect(capped.finishReason).toBe('length');
  });

  it('calls a tool the last user message mentions', () => {
    const r = generateCompletion({
      model: 'm',
      messages: [{ role: 'user', content: 'Please use get_weather for Paris' }],
      tools: [{ name: 'search' }, weatherTool],
    });
    expect(r.finishReason).toBe('tool_calls');
    expect(r.text).toBe('');
    expect(r.toolCalls).toHaveLength(1);
    const call = r.toolCalls[0]!;
    expect(call.name).toBe('get_weather');
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    const args = JSON.parse(call.arguments) as Record<string, unknown>;
    expect(Object.keys(args).sort()).toEqual(['city', 'unit']);
    expect(args.unit).toBe('celsius');
    expect(r.usage.completion_tokens).toBeGreaterThan(0);
  });

  it('answers in text when no tool is mentioned, after a tool result, or with tool_choice none', () => {
    const tools = [weatherTool];
    expect(generateCompletion({ model: 'm', messages: [{ role: 'user', content: 'hello' }], tools }).toolCalls).toHaveLength(0);
    const afterResult = generateCompletion({
      model: 'm',
      messages: [
        { role: 'user', content: 'get_weather please' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny get_weather' },
      ],
      tools,
    });
    expect(afterResult.finishReason).toBe('stop');
    expect(
      generateCompletion({ model: 'm', messages: [{ role: 'user', content: 'get_weather' }], tools, toolChoice: 'none' }).toolCalls,
    ).toHaveLength(0);
  });

  it('honours forced and required tool choice and parallel calls', () => {
    const tools = [{ name: 'alpha' }, { name: 'beta' }];
    const forced = generateCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools, toolChoice: { name: 'beta' } });
    expect(forced.toolCalls.map((c) => c.name)).toEqual(['beta']);
    const required = generateCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools, toolChoice: 'required' });
    expect(required.toolCalls.map((c) => c.name)).toEqual(['alpha']);
    const both = generateCompletion({ model: 'm', messages: [{ role: 'user', content: 'use beta and alpha' }], tools });
    expect(both.toolCalls.map((c) => c.name)).toEqual(['alpha', 'beta']);
    const single = generateCompletion({ model: 'm', messages: [{ role: 'user', content: 'use beta and alpha' }], tools, parallelToolCalls: false });
    expect(single.toolCalls).toHaveLength(1);
    expect(() => generateCompletion({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools, toolChoice: { name: 'gamma' } })).toThrow(
      /gamma/,
    );
  });
});
