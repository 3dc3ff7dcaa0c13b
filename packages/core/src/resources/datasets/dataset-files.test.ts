import { describe, expect, it } from 'vitest';
import { Code, GatewayError } from '../../errors/index.js';
import { countJsonlExamples } from './dataset-files.js';

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
    expect(countJsonlExamples('f.jsonl', '{"messages":[]}\n\n{"messages":[]}\n', 'CHAT')).toEqual({ rows: 2, characters: 30 });
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
