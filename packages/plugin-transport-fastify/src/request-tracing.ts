import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SpanKind, extractTraceContext, failSpan, startSpanIn, withSpanIn, type Span } from '@berth/core';

const spanKey = Symbol('berth.span');
interface RequestWithSpan {
  [spanKey]?: Span;
}

/**
 * A SERVER span per request (parented on the caller's W3C `traceparent`), active while the request is
 * served so storage, engine, tool and webhook spans become its children; named by method and route
 * pattern (as metrics label it, `routeLabeler`), ended with the status. Added only when the host registered an OpenTelemetry SDK.
 */
export function traceRequests(app: FastifyInstance, routeOf: (request: FastifyRequest) => string): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = extractTraceContext(request.headers);
    const span = startSpanIn(parent, `${request.method} ${request.routeOptions.url ?? 'unmatched'}`, {
      'http.request.method': request.method, 'berth.request_id': request.id,
    }, SpanKind.SERVER);
    (request as RequestWithSpan)[spanKey] = span;
    withSpanIn(parent, span, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = (request as RequestWithSpan)[spanKey];
    if (span !== undefined) {
      const route = routeOf(request);
      span.updateName(`${request.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': reply.statusCode });
      if (reply.statusCode >= 500) failSpan(span, new Error(`answered ${reply.statusCode}`));
      span.end();
    }
    done();
  });
}
