import { describe, expect, it } from 'vitest';
import { ModelRewriter, SseModelRewriter } from './model-rewrite.js';

const rewriter = new ModelRewriter('served-model', 'accounts/a/models/m');
const chunk = (model: string, text: string) => `data: {"id":"c1","object":"chat.completion.chunk","model":"${model}","choices":[{"delta":{"content":"${text}"}}]}\n\n`;

describe('ModelRewriter', () => {
  it('rewrites the top-level model of a compact JSON answer', () => {
    const out = rewriter.rewriteDocument(Buffer.from('{"id":"x","model":"served-model","choices":[]}'));
    expect(JSON.parse(out.toString())).toEqual({ id: 'x', model: 'accounts/a/models/m', choices: [] });
  });

  it('falls back to parsing when the answer is not compact', () => {
    const out = rewriter.rewriteDocument(Buffer.from('{"id": "x", "model": "served-model"}'));
    expect(JSON.parse(out.toString())).toEqual({ id: 'x', model: 'accounts/a/models/m' });
  });

  it('never touches a quoted look-alike inside a string value', () => {
    const body = JSON.stringify({ id: 'x', model: 'served-model', content: '"model":"served-model"' });
    const parsed = JSON.parse(rewriter.rewriteDocument(Buffer.from(body)).toString()) as { model: string; content: string };
    expect(parsed).toMatchObject({ model: 'accounts/a/models/m', content: '"model":"served-model"' });
  });

  it('is the identity when the served id is the client model', () => {
    const same = new ModelRewriter('m', 'm');
    const body = Buffer.from('{"model":"m"}');
    expect(same.identity).toBe(true);
    expect(same.rewriteDocument(body)).toBe(body);
  });

  it('rewrites served ids in error text', () => {
    expect(rewriter.rewriteText('The model `served-model` does not exist.')).toBe('The model `accounts/a/models/m` does not exist.');
  });
});

describe('SseModelRewriter', () => {
  it('rewrites each event and forwards whole events at once', () => {
    const sse = new SseModelRewriter(rewriter);
    const out = sse.push(Buffer.from(chunk('served-model', 'a') + chunk('served-model', 'b')));
    expect(out.toString()).toBe(chunk('accounts/a/models/m', 'a') + chunk('accounts/a/models/m', 'b'));
    expect(sse.end().length).toBe(0);
  });

  it('holds a partial event until its end arrives, even when split inside the pattern or a code point', () => {
    const sse = new SseModelRewriter(rewriter);
    const whole = Buffer.from(chunk('served-model', 'é') + 'data: [DONE]\n\n');
    const modelAt = whole.indexOf('"model"');
    const accentAt = whole.indexOf(Buffer.from('é'));
    const cuts = [0, modelAt + 5, accentAt + 1, whole.length - 3, whole.length];
    const received: Buffer[] = [];
    for (let i = 1; i < cuts.length; i += 1) received.push(sse.push(whole.subarray(cuts[i - 1], cuts[i])));
    expect(received[0]!.length).toBe(0);
    expect(Buffer.concat([...received, sse.end()]).toString()).toBe(chunk('accounts/a/models/m', 'é') + 'data: [DONE]\n\n');
  });

  it('flushes an unterminated last event on end', () => {
    const sse = new SseModelRewriter(rewriter);
    expect(sse.push(Buffer.from('data: {"model":"served-model"}')).length).toBe(0);
    expect(sse.end().toString()).toBe('data: {"model":"accounts/a/models/m"}');
  });
});
