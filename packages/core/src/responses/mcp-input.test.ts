import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../errors/index.js';
import { parseInput } from './response-input.js';
import { approvedPendingCalls, checkApprovalResponses } from './mcp-input.js';
import type { ConversationItem, McpApprovalRequestItem, McpApprovalResponseItem, McpCallItem } from './response-types.js';

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
    expect(refusedParam([{ type: 'mcp_approval_response', approve: 'yes', approval_request_id: 'a' }])).toBe('input[0].approve');
    expect(refusedParam([{ type: 'mcp_approval_response', approval_request_id: 'a' }])).toBe('input[0].approve');
    expect(refusedParam([{ type: 'mcp_approval_response', approve: true }])).toBe('input[0].approval_request_id');
    expect(refusedParam([{ type: 'mcp_approval_response', approve: true, approval_request_id: '' }])).toBe('input[0].approval_request_id');
    expect(refusedParam([{ type: 'mcp_approval_response', approve: false, approval_request_id: 'a', reason: 3 }])).toBe('input[0].reason');
    expect(refusedParam([{ type: 'mcp_approval_request', server_label: 'dock', name: 'x', arguments: '{}' }])).toBe('input[0].id');
    expect(refusedParam([{ type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'dock', arguments: '{}' }])).toBe('input[0].name');
  });

  it('takes approval requests back and approval responses as the client answers them', () => {
    const items = parseInput([
      { type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'dock', name: 'lookup', arguments: '{"q":1}' },
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: false, reason: 'not today' },
      { type: 'mcp_approval_response', id: 'mcpa_9', approval_request_id: 'mcpr_2', approve: true },
    ]);
    expect(items[0]).toEqual({ type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'dock', name: 'lookup', arguments: '{"q":1}' });
    expect(items[1]).toEqual({ type: 'mcp_approval_response', id: expect.stringMatching(/^mcpa_[0-9a-f]{32}$/), approval_request_id: 'mcpr_1', approve: false, reason: 'not today' });
    expect(items[2]).toEqual({ type: 'mcp_approval_response', id: 'mcpa_9', approval_request_id: 'mcpr_2', approve: true, reason: null });
  });
});

describe('approval responses', () => {
  const request = (id: string): McpApprovalRequestItem => ({ type: 'mcp_approval_request', id, server_label: 'dock', name: 'lookup', arguments: '{}' });
  const answer = (id: string, approve = true): McpApprovalResponseItem => ({ type: 'mcp_approval_response', id: `mcpa_${id}`, approval_request_id: id, approve, reason: null });
  const ran: McpCallItem = {
    type: 'mcp_call', id: 'mcp_1', server_label: 'dock', name: 'lookup', arguments: '{}', output: 'x', error: null, approval_request_id: 'r1', status: 'completed',
  };
  const checked = (history: ConversationItem[], input: ConversationItem[]): string | undefined => {
    try {
      checkApprovalResponses(history, input);
      return undefined;
    } catch (error) {
      if (isGatewayError(error)) return `${error.field}: ${error.message}`;
      throw error;
    }
  };

  it('must answer a request of the conversation that nothing answered yet', () => {
    expect(checked([request('r1')], [answer('r1')])).toBeUndefined();
    expect(checked([], [request('r1'), answer('r1', false)])).toBeUndefined();
    expect(checked([request('r1')], [answer('r2')])).toBe('input[0].approval_request_id: No MCP approval request found with id r2');
    expect(checked([], [answer('r1'), request('r1')])).toMatch(/^input\[0\]\.approval_request_id: No MCP approval request/);
    expect(checked([request('r1'), answer('r1')], [answer('r1', false)])).toMatch(/already answered/);
    expect(checked([request('r1')], [answer('r1'), answer('r1')])).toMatch(/^input\[1\]\.approval_request_id: .*already answered/);
    expect(checked([request('r1'), ran], [answer('r1')])).toMatch(/already answered/);
  });

  it('lists the approved calls that have not run, once each', () => {
    const items = [request('r1'), request('r2'), request('r3'), answer('r1'), ran, answer('r2', false), answer('r3')];
    expect(approvedPendingCalls(items).map((item) => item.id)).toEqual(['r3']);
    expect(approvedPendingCalls([request('r1'), answer('r1')]).map((item) => item.id)).toEqual(['r1']);
  });
});
