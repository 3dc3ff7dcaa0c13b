import { describe, expect, it } from 'vitest';
import { readSse, SseParser } from './sse.ts';

describe('SseParser', () => {
  it('joins events cut anywhere across chunks, with every line ending', () => {
    const text = 'event: response.created\ndata: {"a":1}\n\n: comment\r\nevent: delta\r\ndata: line 1\r\ndata: line 2\r\n\r\ndata: plain\r\r';
    for (let cut = 0; cut <= text.length; cut += 1) {
      const parser = new SseParser();
      const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut)), ...parser.push('\n\n')];
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'response.created', data: '{"a":1}' },
        { event: 'delta', data: 'line 1\nline 2' },
        { event: 'message', data: 'plain' },
      ]);
    }
  });

  it('skips events without data and unknown fields', () => {
    expect(new SseParser().push('event: ping\n\nid: 3\nretry: 10\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
  });
});

describe('readSse', () => {
  it('reads a byte stream, a multi-byte character split between chunks included, and a last event without a blank line', async () => {
    const bytes = new TextEncoder().encode('data: café\n\ndata: end');
    const split = bytes.indexOf(0xc3) + 1;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, split));
        controller.enqueue(bytes.slice(split));
        controller.close();
      },
    });
    const seen: string[] = [];
    await readSse(body, (event) => seen.push(event.data));
    expect(seen).toEqual(['café', 'end']);
  });
});
