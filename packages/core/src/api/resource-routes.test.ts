import { describe, expect, it } from 'vitest';
import { withReadOnly } from './resource-routes.js';

describe('withReadOnly', () => {
  it('marks output-only paths through objects and array items, leaving the schema given unchanged', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        stats: { type: 'object', properties: { ready: { type: 'integer' }, wanted: { type: 'integer' } } },
        files: { type: 'array', items: { type: 'object', properties: { size: { type: 'string' }, path: { type: 'string' } } } },
      },
    } as const;
    const marked = withReadOnly(schema, ['name', 'stats.ready', 'files.size', 'missing.field']);
    expect(marked).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', readOnly: true },
        stats: { type: 'object', properties: { ready: { type: 'integer', readOnly: true }, wanted: { type: 'integer' } } },
        files: { type: 'array', items: { type: 'object', properties: { size: { type: 'string', readOnly: true }, path: { type: 'string' } } } },
      },
    });
    expect(schema.properties.name).toEqual({ type: 'string' });
  });
});
