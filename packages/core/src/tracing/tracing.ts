import { SpanKind, SpanStatusCode, context, isValidTraceId, propagation, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * OpenTelemetry spans at the gateway's boundaries. Core depends on `@opentelemetry/api` only: without an
 * SDK registered by the host (the templates register one when `OTEL_EXPORTER_OTLP_ENDPOINT` is set) every
 * call here is the API's no-op, and spans cost next to nothing.
 */
const tracer = trace.getTracer('@berth/core');

export { SpanKind, SpanStatusCode, type Attributes, type Span };

/**
 * True when the host registered an OpenTelemetry SDK (a probe span gets a real trace id; it is never ended,
 * so never exported). Callers check once at start-up and skip tracing work entirely without one.
 */
export function tracingEnabled(): boolean {
  return isValidTraceId(tracer.startSpan('berth.probe').spanContext().traceId);
}

/** Starts a span under `parent` (e.g. the caller's context from `traceparent`), for a request's span. */
export function startSpanIn(parent: Context, name: string, attributes: Attributes, kind: SpanKind): Span {
  return tracer.startSpan(name, { kind, attributes }, parent);
}

/** Runs `work` with `span` active inside `parent`'s context. */
export function withSpanIn<T>(parent: Context, span: Span, work: () => T): T {
  return context.with(trace.setSpan(parent, span), work);
}

/** The trace and span ids of the active span, for log lines; undefined outside a sampled span. */
export function activeTraceIds(): { readonly traceId: string; readonly spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return traceFlags & 1 ? { traceId, spanId } : undefined;
}

/**
 * Runs `work` in a span named `name` (the active span while it runs, so spans started inside are its
 * children); a failure is recorded on the span (status ERROR) and rethrown. The span ends when `work` settles.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span the caller ends (for work that outlives one call, such as a streamed answer). */
export function startSpan(name: string, attributes: Attributes, kind: SpanKind = SpanKind.INTERNAL): Span {
  return tracer.startSpan(name, { kind, attributes });
}

/** Runs `work` with `span` as the active span. */
export function withActiveSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work);
}

/** Marks a span failed with `error`. */
export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Adds the active trace's W3C `traceparent` (and `tracestate`) to outgoing `headers` (no-op without an SDK). */
export function injectTraceContext(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}

/** The active context (the root one outside any span), to parent a span on when a request carries no caller's context. */
export function activeContext(): Context {
  return context.active();
}

/**
 * The header names the registered propagator reads (`traceparent`, `tracestate`, `baggage` with the W3C
 * one), lower-case: a request carrying none of them has no context to extract. Read it once, at start-up.
 */
export function propagatedFields(): readonly string[] {
  return propagation.fields().map((field) => field.toLowerCase());
}

/** The context carried by incoming headers (`traceparent`), to parent the request's span on the caller's. */
export function extractTraceContext(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(context.active(), headers);
}
