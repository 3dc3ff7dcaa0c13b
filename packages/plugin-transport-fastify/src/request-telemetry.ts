import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { matchesBearerToken, unauthenticated, type MetricsEndpoint, type Telemetry } from '@berth/core';

/**
 * Reports every answered request to {@link Telemetry} from an `onResponse` hook of Berth's scope (added
 * only when an observer is installed: no cost otherwise). The route label is the route's pattern without
 * the mount prefix — `routeOf(request)` when the request resolved to a documented route (custom methods
 * keep their `:verb`), else Fastify's pattern with `{param}` — or `unmatched`: never the raw URL.
 */
export function reportRequests(app: FastifyInstance, telemetry: Telemetry, prefix: string, routeOf: (request: FastifyRequest) => string | undefined): void {
  const patterns = new Map<string, string>();
  const patternOf = (url: string): string => {
    let pattern = patterns.get(url);
    if (pattern === undefined) {
      pattern = (url.startsWith(prefix) ? url.slice(prefix.length) : url).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      patterns.set(url, pattern);
    }
    return pattern;
  };
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const url = request.routeOptions.url;
    telemetry.httpRequest({
      method: request.method,
      route: routeOf(request) ?? (url === undefined ? 'unmatched' : patternOf(url)),
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
