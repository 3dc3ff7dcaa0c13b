import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTracing } from './tracing.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  trace.disable();
  await stop?.();
  stop = undefined;
  vi.unstubAllEnvs();
});

/** How many of `count` spans the registered tracer provider records. */
function recorded(count: number): number {
  const tracer = trace.getTracer('tracing-test');
  let recording = 0;
  for (let i = 0; i < count; i += 1) {
    const span = tracer.startSpan('probe');
    if (span.isRecording()) recording += 1;
    span.end();
  }
  return recording;
}

/** A collector address nothing listens on: the spans' flush at shutdown fails, which must not fail the shutdown. */
function withCollector(): NodeJS.ProcessEnv {
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:9');
  vi.stubEnv('OTEL_EXPORTER_OTLP_TIMEOUT', '200');
  return process.env;
}

describe('startTracing', () => {
  it('registers nothing without an OTLP endpoint (spans are the API no-ops)', async () => {
    stop = await startTracing({});
    expect(stop).toBeUndefined();
    expect(recorded(10)).toBe(0);
  });

  it('records every span with an OTLP endpoint and no sampler set, and shuts down even when the collector is unreachable', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const shutdown = await startTracing(withCollector());
      expect(recorded(10)).toBe(10);
      await expect(shutdown?.()).resolves.toBeUndefined();
      expect(stderr.mock.calls.map((call) => String(call[0])).join('')).toContain('spans not flushed at shutdown');
    } finally {
      stderr.mockRestore();
    }
  });

  it('samples as OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG say', async () => {
    const env = withCollector();
    vi.stubEnv('OTEL_TRACES_SAMPLER', 'traceidratio');
    vi.stubEnv('OTEL_TRACES_SAMPLER_ARG', '0.1');
    stop = await startTracing(env);
    const share = recorded(4000) / 4000;
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThan(0.15);
  });
});
