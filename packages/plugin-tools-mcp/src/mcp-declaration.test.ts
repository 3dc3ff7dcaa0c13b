import { describe, expect, it } from 'vitest';
import { isGatewayError, type JsonObject } from '@berth/core';
import { defaultLabel, needsApproval, parseMcpDeclaration } from './mcp-declaration.js';

const mcp = (extra: JsonObject = {}): JsonObject => ({ type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com/mcp', ...extra });

/** The error's param and code (lowercased reason) when `tool` is refused. */
function refusal(tool: JsonObject): { param: string | undefined; code: string | undefined; message: string } {
  try {
    parseMcpDeclaration(tool, 'tools[2]');
  } catch (error) {
    if (isGatewayError(error)) return { param: error.field, code: error.reason?.toLowerCase(), message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseMcpDeclaration', () => {
  it('echoes the five keys, null when unset', () => {
    const { echo, declaration } = parseMcpDeclaration(mcp(), 'tools[0]');
    expect(echo).toEqual({ type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com/mcp', allowed_tools: null, headers: null, require_approval: null });
    expect(declaration).toMatchObject({ transport: 'mcp', label: 'docs', headers: {}, param: 'tools[0]', allowed: { names: null, readOnly: false } });
    expect(declaration.url.href).toBe('https://mcp.example.com/mcp');
  });

  it('keeps allowed tools, headers, never and a description', () => {
    const { echo, declaration } = parseMcpDeclaration(
      mcp({ allowed_tools: ['search', 'fetch'], headers: { Authorization: 'Bearer t' }, require_approval: 'never', server_description: 'Docs' }), 'tools[0]',
    );
    expect(echo).toMatchObject({ allowed_tools: ['search', 'fetch'], headers: { Authorization: 'Bearer t' }, require_approval: 'never', server_description: 'Docs' });
    expect([...declaration.allowed.names!]).toEqual(['search', 'fetch']);
    expect(declaration.headers).toEqual({ Authorization: 'Bearer t' });
    const filter = parseMcpDeclaration(mcp({ allowed_tools: { tool_names: ['a'], read_only: true } }), 'tools[0]');
    expect((filter.echo as JsonObject).allowed_tools).toEqual({ tool_names: ['a'], read_only: true });
    expect(filter.declaration.allowed.readOnly).toBe(true);
  });

  it('accepts an sse server with only its URL, labelled after its host', () => {
    const { echo, declaration } = parseMcpDeclaration({ type: 'sse', server_url: 'http://127.0.0.1:9000/sse' }, 'tools[0]');
    expect(echo).toEqual({ type: 'sse', server_label: null, server_url: 'http://127.0.0.1:9000/sse', allowed_tools: null, headers: null, require_approval: null });
    expect(declaration).toMatchObject({ transport: 'sse', label: 'sse_127_0_0_1' });
    expect(defaultLabel(new URL('https://tools.example.com/sse'))).toBe('sse_tools_example_com');
  });

  it('refuses bad declarations naming the key', () => {
    expect(refusal({ type: 'mcp', server_label: 'docs' })).toMatchObject({ param: 'tools[2].server_url', code: 'missing_required_parameter' });
    expect(refusal(mcp({ server_url: 'ftp://example.com' }))).toMatchObject({ param: 'tools[2].server_url', code: 'invalid_value' });
    expect(refusal(mcp({ server_url: 'not a url' }))).toMatchObject({ param: 'tools[2].server_url' });
    expect(refusal(mcp({ server_url: 'https://u:p@example.com/mcp' })).message).toContain('credentials');
    expect(refusal(mcp({ server_url: 42 }))).toMatchObject({ param: 'tools[2].server_url', code: 'invalid_type' });
    expect(refusal({ type: 'mcp', server_url: 'https://mcp.example.com/mcp' })).toMatchObject({ param: 'tools[2].server_label', code: 'missing_required_parameter' });
    expect(refusal(mcp({ server_label: 'has space' }))).toMatchObject({ param: 'tools[2].server_label', code: 'invalid_value' });
    expect(refusal(mcp({ allowed_tools: 'search' }))).toMatchObject({ param: 'tools[2].allowed_tools', code: 'invalid_type' });
    expect(refusal(mcp({ allowed_tools: ['ok', 3] }))).toMatchObject({ param: 'tools[2].allowed_tools[1]', code: 'invalid_type' });
    expect(refusal(mcp({ allowed_tools: { names: ['x'] } }))).toMatchObject({ param: 'tools[2].allowed_tools.names', code: 'unknown_parameter' });
    expect(refusal(mcp({ headers: ['x'] }))).toMatchObject({ param: 'tools[2].headers', code: 'invalid_type' });
    expect(refusal(mcp({ headers: { 'x-key': 1 } }))).toMatchObject({ param: 'tools[2].headers.x-key', code: 'invalid_type' });
    expect(refusal(mcp({ headers: { 'bad name': 'v' } }))).toMatchObject({ param: 'tools[2].headers.bad name' });
    expect(refusal(mcp({ headers: { 'x-key': 'a\r\nb' } }))).toMatchObject({ param: 'tools[2].headers.x-key' });
    expect(refusal(mcp({ headers: { 'Mcp-Session-Id': 's' } }))).toMatchObject({ param: 'tools[2].headers.Mcp-Session-Id', code: 'unsupported_value' });
    expect(refusal(mcp({ require_approval: 'sometimes' }))).toMatchObject({ param: 'tools[2].require_approval', code: 'unsupported_value' });
    expect(refusal(mcp({ require_approval: true }))).toMatchObject({ param: 'tools[2].require_approval', code: 'invalid_type' });
    expect(refusal(mcp({ require_approval: { maybe: {} } }))).toMatchObject({ param: 'tools[2].require_approval.maybe', code: 'unknown_parameter' });
    expect(refusal(mcp({ require_approval: { never: ['a'] } }))).toMatchObject({ param: 'tools[2].require_approval.never', code: 'invalid_type' });
    expect(refusal(mcp({ require_approval: { never: { tool_names: 'a' } } }))).toMatchObject({ param: 'tools[2].require_approval.never.tool_names', code: 'invalid_type' });
    expect(refusal(mcp({ require_approval: { always: { tool_names: [''] } } }))).toMatchObject({ param: 'tools[2].require_approval.always.tool_names[0]' });
    expect(refusal(mcp({ require_approval: { always: { read_only: 'yes' } } }))).toMatchObject({ param: 'tools[2].require_approval.always.read_only', code: 'invalid_type' });
    expect(refusal(mcp({ require_approval: { never: { names: ['a'] } } }))).toMatchObject({ param: 'tools[2].require_approval.never.names', code: 'unknown_parameter' });
    expect(refusal(mcp({ connector_id: 'connector_gmail' }))).toMatchObject({ param: 'tools[2].connector_id', code: 'unsupported_parameter' });
    expect(refusal(mcp({ colour: 'blue' }))).toMatchObject({ param: 'tools[2].colour', code: 'unknown_parameter' });
  });

  it('decides which calls need approval: always when unset, never, or by the always/never filters', () => {
    const tool = (name: string, readOnly: boolean) => ({ name, description: null, input_schema: { type: 'object' }, annotations: readOnly ? { readOnlyHint: true } : null });
    const policy = (value: JsonObject | string | undefined) => parseMcpDeclaration(mcp(value === undefined ? {} : { require_approval: value }), 'tools[0]').declaration.approval;
    expect(needsApproval(policy(undefined), tool('add', false))).toBe(true);
    expect(needsApproval(policy('always'), tool('add', true))).toBe(true);
    expect(needsApproval(policy('never'), tool('add', false))).toBe(false);
    const byName = policy({ never: { tool_names: ['lookup'] } });
    expect([needsApproval(byName, tool('lookup', false)), needsApproval(byName, tool('add', false))]).toEqual([false, true]);
    const readOnly = policy({ never: { read_only: true }, always: { tool_names: ['lookup'] } });
    expect([needsApproval(readOnly, tool('search', true)), needsApproval(readOnly, tool('lookup', true)), needsApproval(readOnly, tool('add', false))]).toEqual([false, true, true]);
    const both = policy({ never: { tool_names: ['lookup', 'add'], read_only: true } });
    expect([needsApproval(both, tool('lookup', true)), needsApproval(both, tool('add', false))]).toEqual([false, true]);
    expect(needsApproval(policy({ never: {} }), tool('add', true))).toBe(true);
    const echo = parseMcpDeclaration(mcp({ require_approval: { always: { tool_names: ['add'] }, never: { read_only: true } } }), 'tools[0]').echo;
    expect((echo as JsonObject).require_approval).toEqual({ always: { tool_names: ['add'] }, never: { read_only: true } });
    expect((parseMcpDeclaration(mcp({ require_approval: 'always' }), 'tools[0]').echo as JsonObject).require_approval).toBe('always');
  });
});
