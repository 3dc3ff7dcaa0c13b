/**
 * OpenTelemetry tracing for the host: when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, registers a tracer provider (W3C trace context, async
 * context) whose spans go to that collector over OTLP/HTTP in batches; otherwise registers nothing and
 * tracing stays off (the gateway's spans are the API's no-ops). Call it before the gateway is built: the
 * gateway checks once at start-up whether tracing is on. Answers the shutdown that flushes the spans (a
 * collector that cannot be reached then is reported on stderr, never fails the shutdown).
 *
 * The SDK reads the rest from the standard variables in `process.env`: the exporter's
 * `OTEL_EXPORTER_OTLP_*` (endpoint, headers, timeout) and the sampler's `OTEL_TRACES_SAMPLER` and
 * `OTEL_TRACES_SAMPLER_ARG` (e.g. `parentbased_traceidratio` and `0.1`; default: every span recorded).
 *
 * The SDK is imported only when tracing is configured: loading it costs about 150–200 ms of start-up,
 * which a gateway without a collector should not pay (BENCHMARKS.md, startup).
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<(() => Promise<void>) | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor }, { NodeTracerProvider }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-trace-node'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'berth-gateway' }),
    // The exporter reads the endpoint, headers and timeout from the standard OTEL_EXPORTER_OTLP_* variables.
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return () => provider.shutdown().catch((error: unknown) => {
    process.stderr.write(`Berth tracing: spans not flushed at shutdown: ${error instanceof Error ? error.message : String(error)}\n`);
  });
}
