import { describe, expect, it } from 'vitest';
import { SchemaComponents } from './schema-components.js';

const model = { type: 'object', properties: { name: { type: 'string' }, displayName: { type: 'string' } } };
const list = { type: 'object', properties: { models: { type: 'array', items: model }, nextPageToken: { type: 'string' } } };

describe('SchemaComponents', () => {
  it('shares a named component between identical schemas, top-level and nested', () => {
    const components = new SchemaComponents();
    expect(components.register(model, 'Model', 'GetModelResponse', true)).toEqual({ $ref: '#/components/schemas/Model' });
    // The same schema with its keys in another order is the same component.
    const reordered = { properties: { displayName: { type: 'string' }, name: { type: 'string' } }, type: 'object' };
    expect(components.register(reordered, 'Thing', 'UndeleteModelResponse', false)).toEqual({ $ref: '#/components/schemas/Model' });
    expect(components.register(list, 'ListModelsResponse', 'ListModelsResponse', true)).toEqual({ $ref: '#/components/schemas/ListModelsResponse' });
    const schemas = components.toComponents();
    expect(Object.keys(schemas)).toEqual(['Model', 'ListModelsResponse']);
    expect(schemas.ListModelsResponse).toEqual({
      type: 'object', properties: { models: { type: 'array', items: { $ref: '#/components/schemas/Model' } }, nextPageToken: { type: 'string' } },
    });
  });

  it('does not share components named after an operation, and never reuses a taken name for another schema', () => {
    const components = new SchemaComponents();
    const urls = { type: 'object', properties: { signedUrls: { type: 'object' } } };
    expect(components.register(urls, 'GetUploadEndpointResponse', 'GetUploadEndpointResponse', false).$ref).toMatch(/GetUploadEndpointResponse$/);
    expect(components.register(urls, 'GetDownloadEndpointResponse', 'GetDownloadEndpointResponse', false).$ref).toMatch(/GetDownloadEndpointResponse$/);
    expect(components.register(model, 'GetUploadEndpointResponse', 'Other', true).$ref).toMatch(/\/Other$/);
    expect(components.register(list, 'GetUploadEndpointResponse', 'Other', true).$ref).toMatch(/\/Other2$/);
  });

  it('names the empty object Empty whoever registers it', () => {
    const components = new SchemaComponents();
    expect(components.register({ type: 'object', properties: {} }, 'CancelJobRequest', 'CancelJobRequest', false).$ref).toBe('#/components/schemas/Empty');
    expect(components.register({ type: 'object', properties: {} }, 'DeleteModelResponse', 'DeleteModelResponse', false).$ref).toBe('#/components/schemas/Empty');
  });
});
