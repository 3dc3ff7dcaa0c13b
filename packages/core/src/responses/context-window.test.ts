import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/index.js';
import { generateCompletion, type EngineChatMessage } from '../engine/generate.js';
import { dropOldest, estimatePromptTokens, fitContext } from './context-window.js';
import { parseInput } from './response-input.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const turns = parseInput([
  { role: 'user', content: words(40) },
  { role: 'assistant', content: words(40) },
  { role: 'user', content: words(40) },
  { role: 'assistant', content: words(40) },
  { role: 'user', content: 'last question' },
]);

describe('estimatePromptTokens', () => {
  it('counts what the reference engine counts', () => {
    const messages = fitContext('be brief', turns, [{ name: 'f', parameters: { type: 'object' } }], undefined, 'disabled').messages;
    const engine = generateCompletion({ model: 'm', messages: messages as unknown as EngineChatMessage[], tools: [{ name: 'f', parameters: { type: 'object' } }] });
    expect(estimatePromptTokens(messages, [{ name: 'f', parameters: { type: 'object' } }])).toBe(engine.usage.prompt_tokens);
  });
});

describe('fitContext', () => {
  const whole = fitContext(null, turns, [], undefined, 'disabled');

  it('keeps everything that fits', () => {
    expect(fitContext(null, turns, [], whole.promptTokens, 'disabled').items).toHaveLength(5);
  });

  it('refuses with truncation disabled, naming input and context_length_exceeded', () => {
    try {
      fitContext(null, turns, [], whole.promptTokens - 1, 'disabled');
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'input', reason: 'CONTEXT_LENGTH_EXCEEDED' });
    }
  });

  it('drops the fewest oldest items with truncation auto, keeping instructions', () => {
    const fitted = fitContext('rules', turns, [], whole.promptTokens - 10, 'auto');
    expect(fitted.items).toEqual(turns.slice(1));
    expect(fitted.messages[0]).toEqual({ role: 'system', content: 'rules' });
    expect(fitted.promptTokens).toBeLessThanOrEqual(whole.promptTokens - 10);
    const tight = fitContext(null, turns, [], 20, 'auto');
    expect(tight.items).toEqual(turns.slice(4));
  });

  it('refuses when even the newest item does not fit', () => {
    expect(() => fitContext(null, turns, [], 2, 'auto')).toThrow(/newest item/);
  });
});

describe('dropOldest', () => {
  it('drops the outputs of dropped calls', () => {
    const items = parseInput([
      { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
      { type: 'function_call', call_id: 'b', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'a', output: 'x' },
      { type: 'function_call_output', call_id: 'b', output: 'y' },
    ]);
    expect(dropOldest(items, 1).map((i) => i.type === 'function_call_output' ? `out:${i.call_id}` : i.type)).toEqual(['function_call', 'out:b']);
  });
});
