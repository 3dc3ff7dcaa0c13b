import type { GatewayPlugin } from '@berth/core';
import { metrics } from '@berth/plugin-metrics';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * What a benchmark gateway child adds when `BENCH_OBSERVABILITY=on`: Prometheus metrics (`@berth/plugin-metrics`,
 * as the templates install it) and OpenTelemetry tracing with a registered tracer provider whose spans are
 * recorded but exported nowhere (tracing on, exporter off). Call before the gateway is built: it checks once
 * at start-up whether tracing is on. `metrics` or `tracing` turns on one of the two (to see which costs what).
 */
export function observabilityPlugins(): GatewayPlugin[] {
  const mode = process.env.BENCH_OBSERVABILITY ?? 'off';
  if (mode === 'on' || mode === 'tracing') new NodeTracerProvider().register();
  return mode === 'on' || mode === 'metrics' ? [metrics()] : [];
}
