import type { FastifyRequest } from 'fastify';

/**
 * The route a request is reported under (metrics' `route` label, a trace's `http.route`): the pattern
 * without the mount prefix — `routeOf(request)` when the request resolved to a documented route (custom
 * methods keep their `:verb`), else Fastify's pattern with `{param}` — or `unmatched`: never the raw URL.
 */
export function routeLabeler(prefix: string, routeOf: (request: FastifyRequest) => string | undefined): (request: FastifyRequest) => string {
  const patterns = new Map<string, string>();
  const patternOf = (url: string): string => {
    let pattern = patterns.get(url);
    if (pattern === undefined) {
      pattern = (url.startsWith(prefix) ? url.slice(prefix.length) : url).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      patterns.set(url, pattern);
    }
    return pattern;
  };
  return (request) => {
    const documented = routeOf(request);
    if (documented !== undefined) return documented;
    // Fastify builds `routeOptions` afresh at each read: read only when no documented route answers.
    const url = request.routeOptions.url;
    return url === undefined ? 'unmatched' : patternOf(url);
  };
}
