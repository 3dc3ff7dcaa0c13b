import { describe, expect, it } from 'vitest';
import type { RouteSpec } from '../route-spec.js';
import { buildOpenApiDocument, errorStatusesOf } from './openapi-document.js';

const handle = async () => ({});
const thing = { type: 'object', properties: { name: { type: 'string', readOnly: true }, size: { type: 'integer' } } };
const routes: RouteSpec[] = [
  { method: 'GET', path: '/v1/accounts/{account_id}/things/{thing_id}', operationId: 'getThing', summary: 'Get a `thing`', tag: 'Things', response: thing, schemaNames: { response: 'Thing' }, handle },
  { method: 'POST', path: '/v1/accounts/{account_id}/things', operationId: 'createThing', summary: 'Create a thing', tag: 'Things', requestBody: thing, response: thing, handle },
  { method: 'POST', path: '/inference/v1/workflows/accounts/system/models/{model}', operationId: 'draw', summary: 'Draw', tag: 'Images', requestBody: { type: 'object', properties: { prompt: { type: 'string' } } }, response: thing, binaryMediaTypes: ['image/png'], handle },
];

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument(routes);
  const get = doc.paths?.['/v1/accounts/{account_id}/things/{thing_id}']?.get;
  const create = doc.paths?.['/v1/accounts/{account_id}/things']?.post;

  it('refers to named components, sharing the one a route named', () => {
    expect(get?.responses?.['200']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' }, example: { name: 'string', size: 1 } } } });
    expect(create?.requestBody).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' }, example: { size: 1 } } } });
    expect(Object.keys(doc.components?.schemas ?? {}).sort()).toEqual(['ControlPlaneError', 'DrawRequest', 'ImageError', 'InferenceError', 'Thing']);
  });

  it('keeps summaries plain text, the Markdown one becoming the description', () => {
    expect(get).toMatchObject({ summary: 'Get a thing', description: 'Get a `thing`' });
    expect(create).not.toHaveProperty('description');
  });

  it('lists error statuses by surface and shape, with error bodies rendered as real failures are', () => {
    expect(errorStatusesOf(routes[0]!)).toEqual([400, 401, 403, 404, 500]);
    expect(errorStatusesOf(routes[1]!)).toEqual([400, 401, 403, 409, 413, 500]);
    expect(errorStatusesOf(routes[2]!)).toEqual([400, 401, 403]);
    expect(get?.responses?.['404']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ControlPlaneError' }, example: { code: 5 } } } });
    const draw = doc.paths?.['/inference/v1/workflows/accounts/system/models/{model}']?.post;
    expect(draw?.responses?.['400']).toMatchObject({ content: { 'application/json': { example: { error_message: expect.any(String) } } } });
    expect(draw?.responses?.['200']).toMatchObject({ content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } });
  });
});
