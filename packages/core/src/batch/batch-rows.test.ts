import { describe, expect, it } from 'vitest';
import { jobDefaults, parseBatchRow } from './batch-rows.js';

describe('batch rows', () => {
  it('maps inferenceParameters to request fields, extraBody lowest', () => {
    expect(jobDefaults({ maxTokens: 10, temperature: 0, topP: 0.5, topK: 4, n: 2, extraBody: '{"max_tokens": 1, "seed": 3}' })).toEqual({
      max_tokens: 10, temperature: 0, top_p: 0.5, top_k: 4, n: 2, seed: 3,
    });
    expect(jobDefaults(undefined)).toEqual({});
    expect(() => jobDefaults({ extraBody: '[1]' })).toThrow('must be a JSON object');
    expect(() => jobDefaults({ extraBody: '{' })).toThrow('not valid JSON');
  });

  it('parses the reference row format with per-row overrides over the job defaults; drops model and stream options', () => {
    const row = parseBatchRow(JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'x', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 } }), 1, { max_tokens: 9, n: 2 });
    expect(row).toEqual({ ok: true, customId: 'a', body: { max_tokens: 3, n: 2, messages: [{ role: 'user', content: 'hi' }] } });
    expect(parseBatchRow(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }), 7, {})).toMatchObject({ ok: true, customId: 'row-7' });
  });

  it('explains rows that cannot be sent', () => {
    const reason = (line: string) => {
      const row = parseBatchRow(line, 1, {});
      return row.ok ? 'ok' : row.reason;
    };
    expect(reason('{x')).toBe('the line is not valid JSON');
    expect(reason('[1]')).toBe('the line must be a JSON object');
    expect(reason('{"custom_id": 5, "body": {}}')).toMatch(/custom_id must be a string/);
    expect(reason('{"custom_id": "a"}')).toMatch(/body must be a JSON object/);
    expect(reason('{"custom_id": "a", "body": {"messages": []}}')).toMatch(/non-empty array/);
    expect(reason('{"custom_id": "a", "body": {"messages": ["hi"]}}')).toMatch(/messages\[0\]/);
    expect(reason('{"custom_id": "a", "body": {"messages": [{"role": "user"}], "stream": true}}')).toMatch(/stream/);
    expect(parseBatchRow('{"custom_id": "a", "body": 1}', 1, {})).toMatchObject({ ok: false, customId: 'a' });
    expect(reason('{"custom_id": "a", "url": "/v1/embeddings", "body": {"messages": [{"role": "user"}]}}')).toMatch(/url must be/);
  });
});
