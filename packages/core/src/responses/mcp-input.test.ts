import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../errors/index.js';
import { parseInput } from './response-input.js';

function refusedParam(input: unknown): string | undefined {
  try {
    parseInput(input as never);
  } catch (error) {
    if (isGatewayError(error)) return error.field;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('MCP items in input', () => {
  it('takes back mcp_list_tools and mcp_call items as a response returned them', () => {
    const items = parseInput([
      { type: 'mcp_list_tools', id: 'mcpl_1', server_label: 'dock', tools: [{ name: 'lookup', input_schema: { type: 'object' }, description: 'finds', annotations: null }], error: null },
      { type: 'mcp_call', id: 'mcp_1', server_label: 'dock', name: 'lookup', arguments: '{}', output: 'found', error: null, status: 'completed' },
      { type: 'mcp_call', server_label: 'dock', name: 'lookup', arguments: '{}', error: 'gate closed' },
    ]);
    expect(items[0]).toEqual({
      type: 'mcp_list_tools', id: 'mcpl_1', server_label: 'dock', tools: [{ name: 'lookup', description: 'finds', input_schema: { type: 'object' }, annotations: null }], error: null,
    });
    expect(items[1]).toEqual({
      type: 'mcp_call', id: 'mcp_1', server_label: 'dock', name: 'lookup', arguments: '{}', output: 'found', error: null, approval_request_id: null, status: 'completed',
    });
    expect(items[2]).toMatchObject({ id: expect.stringMatching(/^mcp_[0-9a-f]{32}$/), output: null, error: 'gate closed', status: 'failed' });
  });

  it('refuses malformed MCP items naming the key', () => {
    expect(refusedParam([{ type: 'mcp_call', server_label: 'dock', arguments: '{}' }])).toBe('input[0].name');
    expect(refusedParam([{ type: 'mcp_call', server_label: 'dock', name: 'x', arguments: {} }])).toBe('input[0].arguments');
    expect(refusedParam([{ type: 'mcp_call', server_label: 'dock', name: 'x', arguments: '{}', status: 'done' }])).toBe('input[0].status');
    expect(refusedParam([{ type: 'mcp_list_tools', server_label: 'dock' }])).toBe('input[0].tools');
    expect(refusedParam([{ type: 'mcp_list_tools', server_label: 'dock', tools: [{ description: 'x' }] }])).toBe('input[0].tools[0].name');
    expect(refusedParam([{ type: 'mcp_approval_response', approve: true, approval_request_id: 'a' }])).toBe('input[0].type');
  });
});
