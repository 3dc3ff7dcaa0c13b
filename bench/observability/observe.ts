import type { GatewayPlugin } from '@berth/core';
import { metrics } from '@berth/plugin-metrics';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * What a benchmark gateway child adds when `BENCH_OBSERVABILITY=on`: Prometheus metrics (`@berth/plugin-metrics`,
 * as the templates install it) and OpenTelemetry tracing with a registered tracer provider whose spans are
 * recorded but exported nowhere (tracing on, exporter off). Call before the gateway is built: it checks once
 * at start-up whether tracing is on.
 */
export function observabilityPlugins(): GatewayPlugin[] {
  if (process.env.BENCH_OBSERVABILITY !== 'on') return [];
  new NodeTracerProvider().register();
  return [metrics()];
}
