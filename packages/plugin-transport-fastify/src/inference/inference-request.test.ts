import { describe, expect, it } from 'vitest';
import { isGatewayError } from '@berth/core';
import { parseChatCompletionRequest, parseCompletionRequest } from './inference-request.js';

const model = 'accounts/a/models/m';
const messages = [{ role: 'user', content: 'hi' }];

function paramOf(run: () => unknown): string | null | undefined {
  try {
    run();
  } catch (error) {
    if (isGatewayError(error) && error.code === 'INVALID_ARGUMENT') return error.field ?? null;
    throw error;
  }
  return undefined;
}

describe('parseChatCompletionRequest', () => {
  it('accepts a minimal body and reads model, stream and user', () => {
    expect(parseChatCompletionRequest({ model, messages })).toMatchObject({ operation: 'chat', model, stream: false });
    expect(parseChatCompletionRequest({ model, messages, stream: true, user: 'u1', extra_vendor_key: 1 })).toMatchObject({ stream: true, user: 'u1' });
  });

  it.each([
    [{ messages }, 'model'],
    [{ model: '', messages }, 'model'],
    [{ model: 7, messages }, 'model'],
    [{ model }, 'messages'],
    [{ model, messages: {} }, 'messages'],
    [{ model, messages: [{ content: 'x' }] }, 'messages[0].role'],
    [{ model, messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    [{ model, messages, stream: 1 }, 'stream'],
    [{ model, messages, stream_options: [] }, 'stream_options'],
    [{ model, messages, temperature: 2.5 }, 'temperature'],
    [{ model, messages, top_p: 1.5 }, 'top_p'],
    [{ model, messages, n: 0 }, 'n'],
    [{ model, messages, max_tokens: 1.5 }, 'max_tokens'],
    [{ model, messages, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    [{ model, messages, tools: {} }, 'tools'],
    [{ model, messages, user: 3 }, 'user'],
  ])('rejects %j naming param %s', (body, param) => {
    expect(paramOf(() => parseChatCompletionRequest(body))).toBe(param);
  });

  it('rejects a non-object body without a param', () => {
    expect(paramOf(() => parseChatCompletionRequest([1]))).toBeNull();
    expect(paramOf(() => parseChatCompletionRequest(undefined))).toBeNull();
  });
});

describe('parseCompletionRequest', () => {
  it('accepts string, string array and token prompts', () => {
    for (const prompt of ['x', ['a', 'b'], [1, 2, 3], [[1], [2, 3]]]) {
      expect(parseCompletionRequest({ model, prompt })).toMatchObject({ operation: 'completion', model });
    }
  });

  it.each([[{ model }], [{ model, prompt: [] }], [{ model, prompt: [1, 'a'] }], [{ model, prompt: 4 }]])('rejects prompt in %j', (body) => {
    expect(paramOf(() => parseCompletionRequest(body))).toBe('prompt');
  });
});
