import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { routeLabeler } from './route-label.js';

const requestAt = (url: string | undefined) => ({ routeOptions: { url } }) as unknown as FastifyRequest;

describe('routeLabeler', () => {
  it('prefers the documented route, else Fastify’s pattern without the prefix and with {param}, else unmatched', () => {
    const documented = new Set(['/berth/v1/accounts/:account_id/models/:model_id']);
    const label = routeLabeler('/berth', (request) =>
      documented.has(request.routeOptions.url ?? '') ? '/v1/accounts/{account_id}/models/{model_id}:undelete' : undefined);
    expect(label(requestAt('/berth/v1/accounts/:account_id/models/:model_id'))).toBe('/v1/accounts/{account_id}/models/{model_id}:undelete');
    expect(label(requestAt('/berth/docs/assets/:version/:file'))).toBe('/docs/assets/{version}/{file}');
    expect(label(requestAt('/berth/docs/assets/:version/:file'))).toBe('/docs/assets/{version}/{file}');
    expect(label(requestAt('/elsewhere/:id'))).toBe('/elsewhere/{id}');
    expect(label(requestAt(undefined))).toBe('unmatched');
  });
});
