import { describe, expect, it } from 'vitest';
import type { FieldDeclarations } from './fields.js';
import { ParseCache } from './parse-cache.js';
import { prepareListRequest } from './list-request.js';

const fieldsA: FieldDeclarations = { name: { path: ['name'], type: 'string' }, createTime: { path: ['createTime'], type: 'timestamp' } };
const fieldsB: FieldDeclarations = { name: { path: ['name'], type: 'string' }, createTime: { path: ['createTime'], type: 'timestamp' } };

describe('ParseCache', () => {
  it('parses a text once per declaration set and shares the result', () => {
    const cache = new ParseCache<{ text: string }>();
    let parses = 0;
    const parse = (text: string) => () => {
      parses += 1;
      return { text };
    };
    const first = cache.get(fieldsA, 'x', parse('x'));
    expect(cache.get(fieldsA, 'x', parse('x'))).toBe(first);
    expect(parses).toBe(1);
    expect(cache.get(fieldsB, 'x', parse('x'))).not.toBe(first);
    expect(parses).toBe(2);
  });

  it('does not remember a parse that throws', () => {
    const cache = new ParseCache<number>();
    let calls = 0;
    const failing = () => {
      calls += 1;
      throw new Error('bad filter');
    };
    expect(() => cache.get(fieldsA, 'bad', failing)).toThrow('bad filter');
    expect(() => cache.get(fieldsA, 'bad', failing)).toThrow('bad filter');
    expect(calls).toBe(2);
  });

  it('keeps at most 256 texts per declaration set, dropping the oldest', () => {
    const cache = new ParseCache<number>();
    let parses = 0;
    for (let i = 0; i < 300; i += 1) cache.get(fieldsA, `f${i}`, () => (parses += 1));
    expect(parses).toBe(300);
    cache.get(fieldsA, 'f299', () => (parses += 1));
    expect(parses).toBe(300);
    cache.get(fieldsA, 'f0', () => (parses += 1));
    expect(parses).toBe(301);
  });
});

describe('prepareListRequest with the parse cache', () => {
  const options = { scope: 'accounts/a/things', declarations: fieldsA, defaultOrder: 'create_time', secret: 's' };
  it('answers repeated requests with the same parsed filter and order', () => {
    const a = prepareListRequest({ filter: 'name = "x"' }, options);
    const b = prepareListRequest({ filter: 'name = "x"' }, options);
    expect(b.filter).toBe(a.filter);
    expect(b.orderBy).toBe(a.orderBy);
    expect(prepareListRequest({ filter: 'name = "x"', orderBy: ' ' }, options).orderBy).toBe(a.orderBy);
  });

  it('still reports a bad filter with its position every time', () => {
    for (let i = 0; i < 2; i += 1) {
      expect(() => prepareListRequest({ filter: 'name = ' }, options)).toThrow(/position/);
    }
  });
});
