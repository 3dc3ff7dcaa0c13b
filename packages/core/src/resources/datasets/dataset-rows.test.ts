import { describe, expect, it } from 'vitest';
import { Code, GatewayError } from '../../errors/index.js';
import { countJsonlExamples, JsonlRowChecker, malformedRowSampleLimit } from './dataset-rows.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof GatewayError ? error.code : 'other';
  }
  return 'none';
};

describe('countJsonlExamples', () => {
  it('counts non-empty rows and their characters', () => {
    expect(countJsonlExamples('f.jsonl', '{"messages":[]}\n\n{"messages":[]}\n', 'CHAT')).toEqual({ rows: 2, characters: 30, malformedRows: 0, malformedSamples: [] });
  });
  it('needs messages for CHAT and RL, prompt for COMPLETION, any object otherwise', () => {
    expect(code(() => countJsonlExamples('f', '{"prompt":"x"}', 'CHAT'))).toBe(Code.INVALID_ARGUMENT);
    expect(code(() => countJsonlExamples('f', '{"prompt":"x"}', 'RL'))).toBe(Code.INVALID_ARGUMENT);
    expect(countJsonlExamples('f', '{"prompt":"x"}', 'COMPLETION').rows).toBe(1);
    expect(code(() => countJsonlExamples('f', '{"messages":[]}', 'COMPLETION'))).toBe(Code.INVALID_ARGUMENT);
    expect(countJsonlExamples('f', '{"anything":1}', 'FORMAT_UNSPECIFIED').rows).toBe(1);
  });
  it('names the file and line of a bad row', () => {
    expect(() => countJsonlExamples('data.jsonl', '{"messages":[]}\n[1,2]\n', 'CHAT')).toThrow('data.jsonl line 2');
    expect(() => countJsonlExamples('data.jsonl', 'nope', 'CHAT')).toThrow('data.jsonl line 1: not valid JSON');
  });
});

const batchRow = (id: string) => JSON.stringify({ custom_id: id, body: { messages: [{ role: 'user', content: id }] } });

describe('JsonlRowChecker on batch rows', () => {
  it('keeps a batch file with malformed rows, counting them with file, line and reason', () => {
    const text = [batchRow('a'), '{broken', batchRow('b'), '{"custom_id":"c"}', '{"body":{"messages":[]}}', '', batchRow('d')].join('\n');
    const counted = countJsonlExamples('batch.jsonl', text, 'FORMAT_UNSPECIFIED');
    expect(counted.rows).toBe(3);
    expect(counted.malformedRows).toBe(3);
    expect(counted.malformedSamples).toEqual([
      { filename: 'batch.jsonl', line: 2, reason: 'not valid JSON' },
      { filename: 'batch.jsonl', line: 4, reason: 'a batch row needs a "body" object (the request)' },
      { filename: 'batch.jsonl', line: 5, reason: 'a batch row needs a non-empty "custom_id" string' },
    ]);
  });
  it('judges bad lines before the first object once the file turns out to be a batch file', () => {
    const counted = countJsonlExamples('b.jsonl', `[1]\n${batchRow('x')}\n`, 'CHAT');
    expect(counted).toMatchObject({ rows: 1, malformedRows: 1, malformedSamples: [{ line: 1, reason: 'each line must be a JSON object' }] });
  });
  it('refuses a training file whose first object comes after a bad line, at that line', () => {
    expect(() => countJsonlExamples('t.jsonl', 'oops\n{"messages":[]}\n', 'CHAT')).toThrow('t.jsonl line 1: not valid JSON');
  });
  it('refuses a batch file without a usable row, and a file of bad lines only', () => {
    expect(() => countJsonlExamples('b.jsonl', '{"custom_id":"a"}\n', 'FORMAT_UNSPECIFIED')).toThrow('no usable batch row');
    expect(() => countJsonlExamples('b.jsonl', 'x\ny\n', 'FORMAT_UNSPECIFIED')).toThrow('b.jsonl line 1');
  });
  it('needs body.prompt in a COMPLETION dataset', () => {
    const counted = countJsonlExamples('c.jsonl', `{"custom_id":"a","body":{"prompt":"hi"}}\n${batchRow('b')}`, 'COMPLETION');
    expect(counted).toMatchObject({ rows: 1, malformedRows: 1, malformedSamples: [{ line: 2, reason: 'a COMPLETION batch row needs a "body.prompt" string' }] });
  });
  it('gives the same answer whatever the chunking, multi-byte characters split included', () => {
    const text = `${batchRow('é-1')}\n{bad\n${batchRow('ü-2')}\n`;
    const bytes = new TextEncoder().encode(text);
    const checker = new JsonlRowChecker('s.jsonl', 'CHAT');
    for (let i = 0; i < bytes.length; i += 3) checker.push(bytes.subarray(i, i + 3));
    expect(checker.end()).toEqual(countJsonlExamples('s.jsonl', text, 'CHAT'));
  });
  it('keeps the reasons of the first 100 malformed rows and counts them all', () => {
    const text = [batchRow('ok'), ...Array.from({ length: 150 }, () => 'nope')].join('\n');
    const counted = countJsonlExamples('m.jsonl', text, 'CHAT');
    expect(counted.malformedRows).toBe(150);
    expect(counted.malformedSamples).toHaveLength(malformedRowSampleLimit);
  });
});
