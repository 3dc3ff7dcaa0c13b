import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/index.js';
import { parseResponseRequest } from './response-request.js';
import type { ResponseToolProvider } from './tool-provider.js';

const model = 'accounts/acme/models/m';

function rejection(body: unknown, providers: ResponseToolProvider[] = []): { param: string | undefined; reason: string | undefined; message: string } {
  try {
    parseResponseRequest(body, providers);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    expect(error.code).toBe('INVALID_ARGUMENT');
    return { param: error.field, reason: error.reason, message: error.message };
  }
  throw new Error('expected a rejection');
}

describe('parseResponseRequest', () => {
  it('fills every default', () => {
    const request = parseResponseRequest({ model, input: 'hi' });
    expect(request).toMatchObject({
      model, previousResponseId: null, instructions: null, maxOutputTokens: null, maxToolCalls: null, metadata: {},
      parallelToolCalls: true, reasoning: { effort: null, summary: null }, store: true, stream: false, background: false,
      temperature: 1, topP: 1, presencePenalty: 0, frequencyPenalty: 0, topLogprobs: 0, text: { format: { type: 'text' } },
      toolChoice: 'auto', tools: [], truncation: 'disabled', user: null, serviceTier: 'default', safetyIdentifier: null, promptCacheKey: null,
    });
    expect(request.input).toEqual([{ type: 'message', id: expect.stringMatching(/^msg_[0-9a-f]{32}$/), role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'hi' }] }]);
  });

  it('takes every setting given', () => {
    const request = parseResponseRequest({
      model, input: 'hi', instructions: 'be brief', max_output_tokens: 5, max_tool_calls: 2, metadata: { a: 'b' },
      parallel_tool_calls: false, reasoning: { effort: 'low', summary: 'auto' }, store: false, temperature: 0, top_p: 0.5,
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } }, truncation: 'auto', user: 'u1',
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }], tool_choice: { type: 'function', name: 'get_weather' },
    });
    expect(request).toMatchObject({
      instructions: 'be brief', maxOutputTokens: 5, maxToolCalls: 2, metadata: { a: 'b' }, parallelToolCalls: false,
      reasoning: { effort: 'low', summary: 'auto' }, store: false, temperature: 0, topP: 0.5, truncation: 'auto', user: 'u1',
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, description: null, strict: true } },
      tools: [{ type: 'function', name: 'get_weather', description: null, parameters: { type: 'object' }, strict: true }],
      toolChoice: { type: 'function', name: 'get_weather' },
    });
  });

  it('treats null as absent', () => {
    const request = parseResponseRequest({ model, input: 'x', temperature: null, top_p: null, store: null, tools: null, metadata: null, instructions: null });
    expect(request).toMatchObject({ temperature: 1, topP: 1, store: true, tools: [], metadata: {}, instructions: null });
  });

  it.each([
    [{ model, input: 'x', temperature: 2.5 }, 'temperature'],
    [{ model, input: 'x', temperature: -0.1 }, 'temperature'],
    [{ model, input: 'x', temperature: '1' }, 'temperature'],
    [{ model, input: 'x', top_p: 1.5 }, 'top_p'],
    [{ model, input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
    [{ model, input: 'x', max_output_tokens: 1.5 }, 'max_output_tokens'],
    [{ model, input: 'x', max_tool_calls: 0 }, 'max_tool_calls'],
    [{ model, input: 'x', parallel_tool_calls: 'yes' }, 'parallel_tool_calls'],
    [{ model, input: 'x', store: 1 }, 'store'],
    [{ model, input: 'x', truncation: 'sometimes' }, 'truncation'],
    [{ model, input: 'x', tool_choice: 'always' }, 'tool_choice'],
    [{ model, input: 'x', tool_choice: 'required' }, 'tool_choice'],
    [{ model, input: 'x', tool_choice: { type: 'function', name: 'nope' } }, 'tool_choice.name'],
    [{ model, input: 'x', metadata: { a: 1 } }, 'metadata.a'],
    [{ model, input: 'x', metadata: 'x' }, 'metadata'],
    [{ model, input: 'x', reasoning: { effort: 'huge' } }, 'reasoning.effort'],
    [{ model, input: 'x', text: { format: { type: 'yaml' } } }, 'text.format.type'],
    [{ model, input: 'x', text: { format: { type: 'json_schema', name: 'x' } } }, 'text.format.schema'],
    [{ model, input: 'x', user: 5 }, 'user'],
    [{ model, input: 'x', previous_response_id: 5 }, 'previous_response_id'],
    [{ model, input: 'x', include: ['everything'] }, 'include[0]'],
    [{ model, input: 'x', conversation: 'conv_1' }, 'conversation'],
    [{ model, input: 'x', frobnicate: true }, 'frobnicate'],
    [{ input: 'x' }, 'model'],
    [{ model: 'llama', input: 'x' }, 'model'],
    [{ model: 'accounts/acme/deployments/d', input: 'x' }, 'model'],
    [{ model }, 'input'],
    [{ model, input: 5 }, 'input'],
    [{ model, input: [] }, 'input'],
  ])('refuses %j naming %s', (body, param) => {
    expect(rejection(body).param).toBe(param);
  });

  it('refuses a body that is not an object', () => {
    expect(rejection([1, 2]).param).toBeUndefined();
  });

  it('allows an empty input list when continuing a conversation', () => {
    expect(parseResponseRequest({ model, input: [], previous_response_id: 'resp_1' }).input).toEqual([]);
  });

  it('allows up to 16 metadata pairs', () => {
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v']));
    expect(Object.keys(parseResponseRequest({ model, input: 'x', metadata: sixteen }).metadata)).toHaveLength(16);
    const refusal = rejection({ model, input: 'x', metadata: { ...sixteen, k16: 'v' } });
    expect(refusal).toMatchObject({ param: 'metadata', message: expect.stringContaining('16') });
    expect(rejection({ model, input: 'x', metadata: { ['k'.repeat(65)]: 'v' } }).param).toMatch(/^metadata\./);
    expect(rejection({ model, input: 'x', metadata: { k: 'v'.repeat(513) } }).param).toBe('metadata.k');
  });

  it('names unknown parameters with code unknown_parameter', () => {
    expect(rejection({ model, input: 'x', seed: 1 })).toMatchObject({ param: 'seed', reason: 'UNKNOWN_PARAMETER' });
  });

  it('refuses MCP tools without a provider, naming the plugin, and hands them to one when installed', () => {
    const mcp = { type: 'mcp', server_url: 'https://example.com/mcp', server_label: 'x' };
    expect(rejection({ model, input: 'x', tools: [mcp] })).toMatchObject({ param: 'tools[0].type', message: expect.stringContaining('@berth/plugin-tools-mcp') });
    expect(rejection({ model, input: 'x', tools: [{ type: 'sse', server_url: 'https://example.com/sse' }] }).message).toContain('@berth/plugin-tools-mcp');
    expect(rejection({ model, input: 'x', tools: [{ type: 'web_search' }] }).param).toBe('tools[0].type');
    const provider: ResponseToolProvider = {
      types: ['mcp'],
      normalize: (tool) => ({ ...tool, type: 'mcp', allowed_tools: null }),
      open: async () => { throw new Error('not opened in this test'); },
    };
    expect(parseResponseRequest({ model, input: 'x', tools: [mcp] }, [provider]).tools).toEqual([{ ...mcp, allowed_tools: null }]);
  });

  it('checks function tools', () => {
    expect(rejection({ model, input: 'x', tools: [{ type: 'function' }] }).param).toBe('tools[0].name');
    expect(rejection({ model, input: 'x', tools: [{ type: 'function', name: 'a b' }] }).param).toBe('tools[0].name');
    expect(rejection({ model, input: 'x', tools: [{ type: 'function', name: 'a', parameters: [] }] }).param).toBe('tools[0].parameters');
    expect(rejection({ model, input: 'x', tools: [{ type: 'function', name: 'a' }, { type: 'function', name: 'a' }] }).param).toBe('tools[1].name');
    expect(rejection({ model, input: 'x', tools: {} }).param).toBe('tools');
  });

  it('parses stream and background (served or refused by the caller)', () => {
    expect(parseResponseRequest({ model, input: 'x', stream: true, background: true })).toMatchObject({ stream: true, background: true });
  });
});
