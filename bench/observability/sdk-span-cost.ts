import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';

/**
 * What the OpenTelemetry SDK alone costs per recorded span, with nothing of Berth's around it: a tracer of
 * a `BasicTracerProvider` with no span processor (nothing exported), `startSpan` then `end` in a hot loop,
 * (1) with two attributes and the SDK's random ids, as a request span starts, and (2) with no attributes
 * and constant ids, the floor of a span. A hot loop is the best case (caches warm, code optimized): in a
 * request a span costs more. The figure is what sets the observability target out of reach: a GET of a
 * model makes three spans, and 5% of its CPU is about 1 µs.
 */
export interface SdkSpanCost {
  /** ns per span with two attributes and random ids. */
  readonly withAttributesNs: number;
  /** ns per span with no attributes and constant ids. */
  readonly floorNs: number;
}

const spans = 200_000;
const repetitions = 5;

function nsPerSpan(run: () => void): number {
  const results: number[] = [];
  for (let i = 0; i < repetitions; i += 1) {
    const started = process.hrtime.bigint();
    run();
    results.push(Number(process.hrtime.bigint() - started) / spans);
  }
  // The first repetitions warm the JIT; the median of the rest.
  const settled = results.slice(2).sort((a, b) => a - b);
  return settled[Math.floor(settled.length / 2)]!;
}

export function measureSdkSpanCost(): SdkSpanCost {
  const withIds = new BasicTracerProvider().getTracer('bench');
  let n = 0;
  const constantIds = {
    generateTraceId: () => '0af7651916cd43dd8448eb211c80319c',
    generateSpanId: () => `b7ad6b71692033${(n++ & 0xff).toString(16).padStart(2, '0')}`,
  };
  const floor = new BasicTracerProvider({ idGenerator: constantIds }).getTracer('bench');
  const attributes = { 'http.request.method': 'GET', 'http.route': '/v1/accounts/:account_id/models/:model_id' };
  const withAttributesNs = nsPerSpan(() => {
    for (let i = 0; i < spans; i += 1) withIds.startSpan('GET /v1/accounts/{account_id}/models/{model_id}', { attributes }).end();
  });
  const floorNs = nsPerSpan(() => {
    for (let i = 0; i < spans; i += 1) floor.startSpan('resources.get models').end();
  });
  return { withAttributesNs, floorNs };
}
