import { describe, expect, it } from 'vitest';
import { SseDataParser } from './sse-data-parser.js';

describe('SseDataParser', () => {
  it('reads events split anywhere, with CRLF, comments and several data lines', () => {
    const parser = new SseDataParser();
    const text = ': comment\r\nevent: x\r\ndata: {"a":1}\r\n\r\ndata: line1\ndata:line2\n\ndata: [DONE]\n\n';
    const bytes = new TextEncoder().encode(text);
    const events: string[] = [];
    for (let i = 0; i < bytes.length; i += 3) events.push(...parser.push(bytes.subarray(i, i + 3)));
    expect(events).toEqual(['{"a":1}', 'line1\nline2', '[DONE]']);
  });

  it('decodes code points split across chunks and ends an unterminated event', () => {
    const parser = new SseDataParser();
    const bytes = new TextEncoder().encode('data: héllo ☃');
    expect([...parser.push(bytes.subarray(0, 8)), ...parser.push(bytes.subarray(8)), ...parser.end()]).toEqual(['héllo ☃']);
  });
});
