import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { inSpan, type Storage } from '@berth/core';
import { openScenarioStorage } from './test-support.js';

// Registered before the plugin registers: it checks once whether tracing is on.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

const ctx = { requestId: 'storage-tracing' };
let started: { storage: Storage; close(): Promise<void> };
beforeAll(async () => (started = await openScenarioStorage()));
afterAll(async () => {
  await started?.close();
  await provider.shutdown();
  trace.disable();
});

describe('PostgreSQL storage with an OpenTelemetry SDK registered', () => {
  it('makes each storage call a CLIENT span (db.system.name postgresql) under the active span, and a transaction a parent of its calls', async () => {
    exporter.reset();
    await inSpan('request', {}, async () => {
      await started.storage.resources.create(ctx, 'accounts/traced/models/m1', { displayName: 'x' });
      await started.storage.transaction(ctx, async (tx) => {
        await tx.resources.getForUpdate(ctx, 'accounts/traced/models/m1');
      });
    });
    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'request')!;
    const create = spans.find((span) => span.name === 'resources.create models');
    const transaction = spans.find((span) => span.name === 'transaction');
    const locked = spans.find((span) => span.name === 'resources.getForUpdate models');
    expect(create?.kind).toBe(SpanKind.CLIENT);
    expect(create?.attributes).toEqual({
      'db.system.name': 'postgresql', 'db.operation.name': 'resources.create', 'db.collection.name': 'models',
    });
    expect(create?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(transaction?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(locked?.parentSpanContext?.spanId).toBe(transaction!.spanContext().spanId);
  });
});
