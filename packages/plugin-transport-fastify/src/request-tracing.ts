import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SpanKind, SpanStatusCode, activeContext, extractTraceContext, propagatedFields, startSpanIn, withSpanIn, type Span } from '@berth/core';

const spanKey = Symbol('berth.span');
interface RequestWithSpan {
  [spanKey]?: Span;
}

/** Ends a request's span with its route and status (the `onResponse` hook of `observeResponses` calls it). */
export type EndRequestSpan = (request: FastifyRequest, reply: FastifyReply, route: string) => void;

/**
 * A SERVER span per request (parented on the caller's W3C `traceparent`), active while the request is
 * served so storage, engine, tool and webhook spans become its children. Started by an `onRequest` hook
 * named by the method alone (the route is not known before routing ends); the returned function, called
 * when the answer has ended, names it by method and route pattern (as metrics label it, `routeLabeler`)
 * and ends it with the status. Added only when the host registered an OpenTelemetry SDK.
 */
export function traceRequests(app: FastifyInstance): EndRequestSpan {
  // The headers the registered propagator reads (`traceparent`, `tracestate`, `baggage` for W3C): a request
  // carrying none of them has no caller's context to extract, so the extraction is skipped.
  const fields = propagatedFields();
  const carriesContext = (headers: FastifyRequest['headers']) => {
    for (const field of fields) if (headers[field] !== undefined) return true;
    return false;
  };
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = carriesContext(request.headers) ? extractTraceContext(request.headers) : activeContext();
    const span = startSpanIn(parent, request.method, {
      'http.request.method': request.method, 'berth.request_id': request.id,
    }, SpanKind.SERVER);
    (request as RequestWithSpan)[spanKey] = span;
    withSpanIn(parent, span, done);
  });
  return (request, reply, route) => {
    const span = (request as RequestWithSpan)[spanKey];
    if (span === undefined) return;
    span.updateName(`${request.method} ${route}`);
    span.setAttribute('http.route', route);
    span.setAttribute('http.response.status_code', reply.statusCode);
    // A 5xx fails the span: status ERROR and `error.type` the status code, as OpenTelemetry's HTTP
    // conventions say; no exception event (the error, if any, was logged and answered already).
    if (reply.statusCode >= 500) {
      span.setAttribute('error.type', String(reply.statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
}
