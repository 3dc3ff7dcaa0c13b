import { afterAll, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, TraceFlags, context, trace } from '@opentelemetry/api';
import { AlwaysOnSampler, InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor, type ReadableSpan, type Sampler } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { systemContext } from '../contracts/request-context.js';
import { MemoryStorage } from '../storage-memory/memory-storage.js';
import { describeStorageContract } from '../testing/storage-contract.js';
import { memoryStorage } from '../storage-memory/memory-storage-plugin.js';
import { inSpan, tracingEnabled } from './tracing.js';
import { traceStorage } from './storage-tracing.js';

const exporter = new InMemorySpanExporter();
/** The SDK's default sampler, counting the spans it was asked about by name (unsampled ones included). */
const asked = new Map<string, number>();
const defaultSampler = new ParentBasedSampler({ root: new AlwaysOnSampler() });
const countingSampler: Sampler = {
  shouldSample: (...args) => {
    asked.set(args[2], (asked.get(args[2]) ?? 0) + 1);
    return defaultSampler.shouldSample(...args);
  },
  toString: () => 'counting(ParentBased(AlwaysOn))',
};
const provider = new NodeTracerProvider({ sampler: countingSampler, spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});

// The wrapper changes nothing a caller sees: the whole storage contract passes through it.
describeStorageContract('memory, traced', async () => ({ storage: traceStorage(new MemoryStorage(), 'memory'), cleanup: async () => {} }), {
  blobs: { holdsObjectsInProcess: true },
});

const ctx = systemContext('test');
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);

describe('traceStorage', () => {
  it('a span per call, child of the active span, with the database attributes and no key, id or value', async () => {
    const storage = traceStorage(new MemoryStorage(), 'postgresql');
    exporter.reset();
    await inSpan('request', {}, async () => {
      await storage.resources.create(ctx, 'accounts/acme/models/secret-model', { displayName: 'private words' });
      await storage.resources.get(ctx, 'accounts/acme/models/secret-model');
      await storage.kv.set(ctx, 'idempotency:secret-key', { value: 'private words' });
    });
    const [request] = named('request');
    const [create] = named('resources.create models');
    const [get] = named('resources.get models');
    const [kv] = named('kv.set kv');
    for (const span of [create, get, kv]) {
      expect(span?.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(span!)).toBe(request!.spanContext().spanId);
      expect(span!.spanContext().traceId).toBe(request!.spanContext().traceId);
      expect(JSON.stringify(span!.attributes)).not.toMatch(/secret|private|acme/);
    }
    expect(get!.attributes).toEqual({
      'db.system.name': 'postgresql', 'db.operation.name': 'resources.get', 'db.collection.name': 'models',
    });
    expect(kv!.attributes).toMatchObject({ 'db.operation.name': 'kv.set', 'db.collection.name': 'kv' });
  });

  it('a transaction is a span with the calls made through it as children; a failure marks both failed', async () => {
    const storage = traceStorage(new MemoryStorage(), 'memory');
    exporter.reset();
    await inSpan('job', {}, () => storage.transaction(ctx, async (tx) => {
      await tx.lock(ctx, 'last-admin:accounts/acme');
      await tx.resources.getForUpdate(ctx, 'accounts/acme/users/u1');
      await tx.queue.enqueue(ctx, { queue: 'batch', payload: {} });
    }));
    const [transaction] = named('transaction');
    expect(transaction?.kind).toBe(SpanKind.INTERNAL);
    expect(transaction?.attributes['db.system.name']).toBe('memory');
    const children = exporter.getFinishedSpans().filter((span) => parentOf(span) === transaction!.spanContext().spanId).map((span) => span.name);
    expect(children).toEqual(['transaction.lock', 'resources.getForUpdate users', 'queue.enqueue batch']);

    exporter.reset();
    await inSpan('job', {}, async () => {
      await expect(storage.resources.update(ctx, 'accounts/acme/models/missing', {}, 'etag')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(storage.transaction(ctx, async () => {
        throw new Error('work failed');
      })).rejects.toThrow('work failed');
    });
    expect(named('resources.update models')[0]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(named('transaction')[0]?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'work failed' });
  });

  it('the memory storage plugin binds a traced store when tracing is on', async () => {
    expect(tracingEnabled()).toBe(true);
    let bound: unknown;
    memoryStorage().register({ bindValue: (_token: unknown, value: unknown) => { bound = value; } } as never);
    expect(bound).not.toBeInstanceOf(MemoryStorage);
    exporter.reset();
    await inSpan('request', {}, () => (bound as MemoryStorage).resources.get(ctx, 'accounts/acme/models/m'));
    expect(named('resources.get models')).toHaveLength(1);
  });

  it('calls outside any span (pollers, sweeps) start no trace of their own', async () => {
    const storage = traceStorage(new MemoryStorage(), 'memory');
    exporter.reset();
    await storage.queue.claim(ctx, 'batch', 'w1', 1_000);
    await storage.outbox.poll(ctx, 'consumer', 10);
    await storage.transaction(ctx, async (tx) => {
      await tx.resources.getForUpdate(ctx, 'accounts/acme/models/m');
    });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('calls inside a span that is not recording (an unsampled trace) start no span', async () => {
    const storage = traceStorage(new MemoryStorage(), 'memory');
    exporter.reset();
    asked.clear();
    const unsampled = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE });
    await context.with(trace.setSpan(context.active(), unsampled), () => storage.resources.get(ctx, 'accounts/acme/models/m'));
    expect(asked.get('resources.get models')).toBeUndefined();
    // The same call under a recording span is asked about and recorded.
    await inSpan('request', {}, () => storage.resources.get(ctx, 'accounts/acme/models/m'));
    expect(asked.get('resources.get models')).toBe(1);
    expect(named('resources.get models')).toHaveLength(1);
  });
});
