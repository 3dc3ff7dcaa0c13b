import { describe, expect, it } from 'vitest';
import { compileValidator } from '@berth/core';
import { exampleOf } from './schema-example.js';

const resource = {
  type: 'object',
  required: ['displayName'],
  properties: {
    name: { type: 'string', readOnly: true },
    displayName: { type: 'string', maxLength: 4 },
    secret: { type: 'string', writeOnly: true },
    state: { type: 'string', enum: ['STATE_UNSPECIFIED', 'READY'] },
    count: { type: 'integer', minimum: 3, maximum: 9 },
    ratio: { type: 'number', maximum: 0.1 },
    window: { type: 'string', pattern: '^-?[0-9]{1,12}(\\.[0-9]{1,9})?s$' },
    size: { type: 'string', format: 'int64', pattern: '^[0-9]{1,19}$' },
    createTime: { type: 'string', format: 'date-time' },
    tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
    labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 4 },
    parent: { anyOf: [{ type: 'null' }, { type: 'object', properties: { id: { type: 'string', const: 'p' } } }] },
    mode: { type: ['string', 'null'], default: 'fast' },
  },
} as const;

describe('exampleOf', () => {
  it('builds a request example that leaves out read-only fields and satisfies the schema', () => {
    const example = exampleOf(resource, 'request') as Record<string, unknown>;
    expect(Object.keys(example)[0]).toBe('displayName');
    expect(example).not.toHaveProperty('name');
    expect(example).toMatchObject({
      secret: 'string', state: 'READY', count: 3, ratio: 0.1, window: '30s', size: '1', createTime: '2026-01-01T00:00:00Z',
      tags: ['string', 'string'], labels: {}, parent: { id: 'p' }, mode: 'fast',
    });
    expect(() => compileValidator(resource, 'example')(example)).not.toThrow();
  });

  it('builds a response example without write-only fields, preferring the schema\'s own examples', () => {
    const example = exampleOf({ ...resource, properties: { ...resource.properties, displayName: { type: 'string', examples: ['Llama'] } } }, 'response') as Record<string, unknown>;
    expect(example).not.toHaveProperty('secret');
    expect(example).toMatchObject({ name: 'string', displayName: 'Llama' });
  });

  it('answers null for what is not a schema and a text for a schema without a type', () => {
    expect(exampleOf(undefined, 'request')).toBeNull();
    expect(exampleOf({ description: 'any JSON' }, 'request')).toBe('string');
    expect(exampleOf({ type: 'array', maxItems: 0, items: { type: 'string' } }, 'request')).toEqual([]);
    expect(exampleOf({ enum: [null, 'KIND_UNSPECIFIED'] }, 'request')).toBe('KIND_UNSPECIFIED');
  });
});
