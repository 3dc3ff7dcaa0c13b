import { describe, expect, it } from 'vitest';
import { assertJsonDepth } from './json-depth.js';
import { assertNoNul, assertNoNulInJson } from './nul.js';
import { compileInputValidator, compileValidator, strictSchema } from './schema-validator.js';
import { camelCaseSegment, deletePath, getPath, setPath } from './paths.js';
import { defaultGatewayConfig } from '../kernel/config.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    createTime: { type: 'string' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    enabled: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    nested: {
      type: 'object',
      properties: { inner: { type: 'integer' }, serverSet: { type: 'string' }, deeper: { type: 'object', properties: { leaf: { type: 'string' } } } },
    },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    kind: { type: 'string', enum: ['A', 'B'] },
  },
} as const;

const validate = compileInputValidator(schema, ['name', 'createTime', 'nested.serverSet'], 'thing');

function invalid(body: unknown): { code: string; message: string; field?: string; reason?: string } {
  try {
    validate(body);
  } catch (error) {
    return error as { code: string; message: string; field?: string; reason?: string };
  }
  throw new Error('expected the body to be rejected');
}

describe('strict request bodies', () => {
  it('accepts a body of the right types and returns a copy', () => {
    const body = { count: 5, ratio: 0.5, enabled: true, tags: ['x'], nested: { inner: 1 }, labels: { any: 'key' }, kind: 'A' };
    const out = validate(body);
    expect(out).toEqual(body);
    expect(out).not.toBe(body);
  });

  it.each([
    ['a string for an integer', { count: '5' }, 'count'],
    ['a float for an integer', { count: 5.5 }, 'count'],
    ['a string for a number', { ratio: '0.5' }, 'ratio'],
    ['a string for a boolean', { enabled: 'true' }, 'enabled'],
    ['a number for a boolean', { enabled: 1 }, 'enabled'],
    ['a number for a string', { kind: 1 }, 'kind'],
    ['null for an integer', { count: null }, 'count'],
    ['an object for an array', { tags: { a: 'x' } }, 'tags'],
    ['a number inside an array of strings', { tags: ['x', 2] }, 'tags[1]'],
    ['a string for a nested integer', { nested: { inner: '1' } }, 'nested.inner'],
    ['an array for an object', { nested: [] }, 'nested'],
  ])('rejects %s with INVALID_ARGUMENT (no coercion)', (_label, body, field) => {
    const error = invalid(body);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('does not coerce: the accepted body keeps its JSON types', () => {
    expect(validate({ count: 5 }).count).toBe(5);
  });

  it('rejects an unknown top-level field, naming it', () => {
    const error = invalid({ count: 1, colour: 'red' });
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'colour', reason: 'UNKNOWN_FIELD' });
    expect(error.message).toContain('"colour"');
  });

  it('rejects an unknown nested field, naming its full path', () => {
    const error = invalid({ nested: { inner: 1, extra: true } });
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'nested.extra', reason: 'UNKNOWN_FIELD' });
    expect(error.message).toContain('nested.extra');
    expect(invalid({ nested: { deeper: { leaf: 'x', nope: 1 } } })).toMatchObject({ field: 'nested.deeper.nope' });
  });

  it('keeps maps open (additionalProperties schemas) but typed', () => {
    expect(validate({ labels: { anything: 'goes' } })).toEqual({ labels: { anything: 'goes' } });
    expect(invalid({ labels: { anything: 1 } })).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('ignores output-only fields, top-level and nested, whatever their type', () => {
    expect(validate({ name: 42, createTime: { not: 'a time' }, count: 1, nested: { serverSet: [1], inner: 2 } })).toEqual({ count: 1, nested: { inner: 2 } });
  });

  it('rejects an enum value outside the list, naming the allowed values', () => {
    const error = invalid({ kind: 'C' });
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'kind' });
    expect(error.message).toContain('A, B');
  });

  it.each([[null], [[]], ['text'], [5]])('rejects a body that is not an object: %j', (body) => {
    expect(invalid(body)).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('does not modify the caller’s body', () => {
    const body = { name: 'x', count: 1 };
    validate(body);
    expect(body).toEqual({ name: 'x', count: 1 });
  });

  it('refuses NUL in any string value or key, naming the field', () => {
    expect(invalid({ labels: { a: 'x\u0000' } })).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'labels.a', reason: 'NUL_CHARACTER' });
    expect(invalid({ tags: ['ok', '\u0000'] })).toMatchObject({ field: 'tags[1]', reason: 'NUL_CHARACTER' });
    expect(invalid({ labels: { 'k\u0000': 'v' } })).toMatchObject({ reason: 'NUL_CHARACTER' });
    // Output-only fields are ignored, but not a NUL in them: no string with NUL gets past validation.
    expect(invalid({ name: 'a\u0000' })).toMatchObject({ reason: 'NUL_CHARACTER' });
    const check = compileValidator({ type: 'object', properties: { a: { type: 'string' } } }, 'request body');
    expect(() => check({ a: '\u0000' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'a' }));
  });

  it('range-checks int64 strings (format int64)', () => {
    const check = compileValidator({ type: 'object', properties: { n: { type: 'string', pattern: '^-?[0-9]{1,19}$', format: 'int64' } } }, 'request body');
    for (const n of ['0', '-1', '9223372036854775807', '-9223372036854775808']) expect(() => check({ n }), n).not.toThrow();
    for (const n of ['9223372036854775808', '9999999999999999999', '-9223372036854775809']) {
      expect(() => check({ n }), n).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'n', message: expect.stringContaining('64-bit integer') }));
    }
  });

  it('compileValidator is strict too', () => {
    const check = compileValidator({ type: 'object', properties: { a: { type: 'integer' } } }, 'query');
    expect(() => check({ a: 1 })).not.toThrow();
    expect(() => check({ a: '1' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'a' }));
    expect(() => check({ b: 1 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'b' }));
  });

  it('strictSchema closes objects with properties but leaves explicit additionalProperties and enums alone', () => {
    const strict = strictSchema({
      type: 'object',
      properties: { open: { type: 'object', additionalProperties: true, properties: { a: { type: 'string' } } }, e: { enum: ['type', 'object'] } },
    }) as { additionalProperties: unknown; properties: { open: { additionalProperties: unknown }; e: { enum: unknown } } };
    expect(strict.additionalProperties).toBe(false);
    expect(strict.properties.open.additionalProperties).toBe(true);
    expect(strict.properties.e.enum).toEqual(['type', 'object']);
  });
});

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

describe('JSON depth', () => {
  const max = defaultGatewayConfig.maxJsonDepth;

  it('defaults to 64', () => expect(max).toBe(64));

  it('accepts depth 64', () => {
    expect(() => assertJsonDepth(nested(64), max)).not.toThrow();
  });

  it('rejects depth 65 with INVALID_ARGUMENT', () => {
    expect(() => assertJsonDepth(nested(65), max)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', reason: 'JSON_TOO_DEEP' }));
  });

  it('counts arrays and objects alike, and looks into every branch', () => {
    expect(() => assertJsonDepth({ shallow: 1, deep: nested(64) }, max)).toThrow(/deeper than 64/);
    expect(() => assertJsonDepth([1, 'x', nested(63)], max)).not.toThrow();
  });

  it('handles very deep input without recursion (no stack overflow)', () => {
    expect(() => assertJsonDepth(nested(100_000), max)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('accepts scalars', () => {
    for (const value of [null, 1, 'x', true]) expect(() => assertJsonDepth(value, max)).not.toThrow();
  });
});

describe('NUL in request input', () => {
  it('is refused anywhere in a JSON body, with the path of the field', () => {
    const at = (value: unknown) => {
      try {
        assertNoNulInJson(value);
      } catch (error) {
        return error as { field?: string; reason?: string };
      }
      return undefined;
    };
    expect(at('\u0000')).toMatchObject({ reason: 'NUL_CHARACTER' });
    expect(at({ a: [{ b: 'x\u0000' }] })).toMatchObject({ field: 'a[0].b', reason: 'NUL_CHARACTER' });
    expect(at([[{ 'k\u0000': 1 }]])).toMatchObject({ reason: 'NUL_CHARACTER' });
    expect(at({ a: 'x\\u0000', b: [1, true, null] })).toBeUndefined();
  });

  it('is refused in a query parameter', () => {
    expect(() => assertNoNul('ok', 'filter')).not.toThrow();
    expect(() => assertNoNul('a\u0000', 'filter')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'filter' }));
  });
});

describe('paths', () => {
  it('converts snake_case segments', () => {
    expect(camelCaseSegment('create_time')).toBe('createTime');
    expect(camelCaseSegment('scale_to_zero_window')).toBe('scaleToZeroWindow');
  });

  it('gets, sets and deletes dotted paths', () => {
    const data = { a: { b: 1 } };
    expect(getPath(data, ['a', 'b'])).toBe(1);
    expect(getPath(data, ['a', 'x', 'y'])).toBeUndefined();
    setPath(data, ['c', 'd'], 2);
    expect(data).toEqual({ a: { b: 1 }, c: { d: 2 } });
    deletePath(data, ['a', 'b']);
    deletePath(data, ['missing', 'x']);
    expect(data).toEqual({ a: {}, c: { d: 2 } });
  });
});
