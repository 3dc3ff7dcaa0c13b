import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { matchesBearerToken, unauthenticated, type MetricsEndpoint, type Telemetry } from '@berth/core';

/**
 * Reports every answered request to {@link Telemetry} from an `onResponse` hook of Berth's scope (added
 * only when an observer is installed: no cost otherwise), under the route `routeOf` gives (see `routeLabeler`).
 */
export function reportRequests(app: FastifyInstance, telemetry: Telemetry, routeOf: (request: FastifyRequest) => string): void {
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    telemetry.httpRequest({
      method: request.method,
      route: routeOf(request),
      status: reply.statusCode,
      durationSeconds: reply.elapsedTime / 1000,
    });
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
