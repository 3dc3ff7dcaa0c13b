import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../ports/json.js';
import type { ResourceType, SchemaType } from './schema-type.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 512 },
    createTime: { type: 'string', format: 'date-time' },
    state: { type: 'string', enum: ['A', 'B'] },
    kind: { const: 'widget' },
    count: { type: 'integer', minimum: 0 },
    ratio: { type: 'number' },
    on: { type: 'boolean' },
    nested: { type: 'object', properties: { id: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['id'] },
    empty: { type: 'object', properties: {} },
    weights: { type: 'object', additionalProperties: { type: 'number' } },
    free: { type: 'object' },
  },
} as const;
type T = SchemaType<typeof schema>;

// Compile-time checks: each assignment below compiles exactly when the comment says it should.
const full: T = {
  name: 'n', createTime: 't', state: 'A', kind: 'widget', count: 1, ratio: 0.5, on: true, nested: { id: 'x', tags: ['t'] }, empty: {},
  weights: { a: 1 }, free: { any: [true, null] },
};
const none: T = {};
// @ts-expect-error a field the schema does not declare (objects are closed, as the validators make them)
const misspelt: T = { nmae: 'n' };
// @ts-expect-error a value outside the enum
const badState: T = { state: 'C' };
// @ts-expect-error a required nested field missing
const incomplete: T = { nested: { tags: [] } };
// @ts-expect-error an empty `properties` takes no field
const notEmpty: T = { empty: { a: 1 } };
// @ts-expect-error a map's values have the map's type
const badWeight: T = { weights: { a: 'heavy' } };
const json: JsonObject = full;
const resource: ResourceType<typeof schema> = { name: 'n', createTime: 't' };
// @ts-expect-error a resource always has its name (and createTime, updateTime when the schema declares them)
const unnamed: ResourceType<typeof schema> = { createTime: 't' };
const unreadable = { type: 'object', properties: { either: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } } as const;
const odd = {} as SchemaType<typeof unreadable>;
// @ts-expect-error a keyword SchemaType cannot read gives a type that is not JSON
const notJson: JsonObject = odd;

describe('SchemaType', () => {
  it('types every keyword resource schemas use (checked when this file compiles)', () => {
    expect([schema, unreadable, full, none, misspelt, badState, incomplete, notEmpty, badWeight, json, resource, unnamed, notJson]).toHaveLength(13);
  });
});
