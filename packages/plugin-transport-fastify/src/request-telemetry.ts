import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { matchesBearerToken, unauthenticated, type MetricsEndpoint, type Telemetry } from '@berth/core';
import type { EndRequestSpan } from './request-tracing.js';

/**
 * One `onResponse` hook of Berth's scope for what is observed of every answered request: reports it to
 * {@link Telemetry} (when an observer is installed) and ends its span (`endSpan`, when tracing is on),
 * under the route `routeOf` gives (see `routeLabeler`), computed once for both. Added only when one of
 * the two is on: no hook and no cost otherwise.
 */
export function observeResponses(
  app: FastifyInstance,
  routeOf: (request: FastifyRequest) => string,
  observers: { readonly telemetry?: Telemetry | undefined; readonly endSpan?: EndRequestSpan | undefined },
): void {
  const { telemetry, endSpan } = observers;
  if (telemetry === undefined && endSpan === undefined) return;
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = routeOf(request);
    telemetry?.httpRequest({ method: request.method, route, status: reply.statusCode, durationSeconds: reply.elapsedTime / 1000 });
    endSpan?.(request, reply, route);
    done();
  });
}

/** Serves `endpoint` at its path, behind its own bearer token when it has one (API keys do not open it). */
export function serveMetrics(app: FastifyInstance, endpoint: MetricsEndpoint & { readonly path: string }): void {
  app.get(endpoint.path, async (request, reply) => {
    if (endpoint.bearerToken !== undefined && !matchesBearerToken(request.headers.authorization, endpoint.bearerToken)) {
      throw unauthenticated('the metrics need their own bearer token');
    }
    const { contentType, body } = await endpoint.render();
    return reply.type(contentType).send(body);
  });
}
