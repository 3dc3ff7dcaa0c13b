import { describe, expect, it } from 'vitest';
import { resultOutcome, resultText } from './mcp-result.js';

describe('MCP call results', () => {
  it('reads text parts, names other parts, and falls back to structured content', () => {
    expect(resultText({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }, { type: 'text', text: 'b' }] }))
      .toBe('a\n[image image/png]\nb');
    expect(resultText({ content: [{ type: 'resource', resource: { uri: 'file:///x', text: 'inside' } }, { type: 'resource_link', uri: 'file:///y', name: 'y' }] }))
      .toBe('inside\n[resource file:///y]');
    expect(resultText({ content: [], structuredContent: { temperature: 21 } })).toBe('{"temperature":21}');
  });

  it('makes an isError result the error the model reads', () => {
    expect(resultOutcome({ content: [{ type: 'text', text: 'boom' }], isError: true })).toEqual({ error: 'boom' });
    expect(resultOutcome({ content: [], isError: true })).toEqual({ error: 'the tool reported an error without a message' });
    expect(resultOutcome({ content: [{ type: 'text', text: '42' }] })).toEqual({ output: '42' });
  });
});
