import { systemContext } from '../contracts/request-context.js';
import type { QueryValues, RouteRequest } from './route-spec.js';

/** A route request as the transport would build it, for the declaration helpers' tests. */
export function routeRequest(parts: { params?: Record<string, string>; query?: QueryValues; body?: unknown; baseUrl?: string } = {}): RouteRequest {
  return {
    ctx: systemContext('test'),
    params: parts.params ?? {},
    query: parts.query ?? {},
    body: parts.body,
    baseUrl: parts.baseUrl ?? 'http://gateway.test',
  };
}
