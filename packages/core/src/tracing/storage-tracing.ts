import { SpanKind, context, trace, type Attributes, type Span, type SpanOptions } from '@opentelemetry/api';
import type {
  BlobStore, JobQueue, KeyValueStore, Outbox, ResourceStore, Storage, StorageTransaction, TransactionResourceStore,
} from '../ports/storage.js';
import { failSpan } from './tracing.js';

const tracer = trace.getTracer('@berth/core');

/** The `db.system.name` of a traced storage: the OpenTelemetry value for PostgreSQL, or a name of the adapter's own. */
export type StorageSystem = 'postgresql' | 'memory' | (string & {});

/**
 * What one span of a storage call carries: OpenTelemetry's database attributes (`db.system.name`, the name
 * the current conventions give the older `db.system`; `db.operation.name` such as `resources.get`;
 * `db.collection.name` where the call names one, such as `models`, `kv`, a queue's name). Never a key, a
 * resource id, a value or a SQL parameter: only which port operation ran on which collection. Each
 * attribute costs the SDK about 1,300 instructions per span (callgrind), so there are no more than these.
 */
interface Call {
  readonly kind: SpanKind;
  readonly system: string;
  /** The span name and options of each operation and collection, built once (the SDK copies the attributes it is given). */
  readonly options: Map<string, { readonly name: string; readonly options: SpanOptions }>;
}

/** Operations × collections are a short fixed list; past this many entries (malformed names), options are built per call. */
const maxCachedOptions = 512;

function started(call: Call, operation: string, collection: string | undefined): Span {
  const key = collection === undefined ? operation : `${operation} ${collection}`;
  let entry = call.options.get(key);
  if (entry === undefined) {
    const attributes: Attributes = { 'db.system.name': call.system, 'db.operation.name': operation };
    if (collection !== undefined) attributes['db.collection.name'] = collection;
    entry = { name: key, options: { kind: call.kind, attributes: Object.freeze(attributes) } };
    if (call.options.size < maxCachedOptions) call.options.set(key, entry);
  }
  return tracer.startSpan(entry.name, entry.options);
}

/**
 * True when a recording span is active: storage calls are traced as children of a traced request or job
 * only. Calls outside any span (the queue workers' and outbox consumers' polling, background sweeps) would
 * each start a trace of their own, a stream of one-span traces every poll interval, so they are not traced
 * (as OpenTelemetry's database instrumentations do with `requireParentSpan`). Calls inside a span that is
 * not recording (its trace was not sampled) are not traced either: with the parent-based samplers (the
 * SDK's default, and the ratio sampler the templates document) their spans could never be sampled, and
 * starting them cost a sampler call and two id checks each for nothing.
 */
function inTrace(): boolean {
  return trace.getSpan(context.active())?.isRecording() === true;
}

/** Runs `work` under a span that ends when its promise settles (a rejection marks it failed); `work` alone outside any span. */
function traced<T>(call: Call, operation: string, collection: string | undefined, work: () => Promise<T>): Promise<T> {
  return inTrace() ? settle(started(call, operation, collection), work) : work();
}

/** Ends `span` when `work`'s promise settles, marking it failed on a rejection (or a synchronous throw). */
function settle<T>(span: Span, work: () => Promise<T>): Promise<T> {
  let pending: Promise<T>;
  try {
    pending = work();
  } catch (error) {
    failSpan(span, error);
    span.end();
    return Promise.reject(error as Error);
  }
  return pending.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failSpan(span, error);
      span.end();
      throw error;
    },
  );
}

/** The collection of a resource name `…/{collection}/{id}` (a fixed collection id such as `models`, never the id). */
function collectionOf(name: string): string | undefined {
  const last = name.lastIndexOf('/');
  if (last <= 0) return undefined;
  const before = name.lastIndexOf('/', last - 1);
  return name.slice(before + 1, last);
}

function tracedResources(call: Call, store: ResourceStore): ResourceStore {
  return {
    create: (ctx, name, data) => traced(call, 'resources.create', collectionOf(name), () => store.create(ctx, name, data)),
    get: (ctx, name) => traced(call, 'resources.get', collectionOf(name), () => store.get(ctx, name)),
    update: (ctx, name, data, etag) => traced(call, 'resources.update', collectionOf(name), () => store.update(ctx, name, data, etag)),
    delete: (ctx, name, etag) => traced(call, 'resources.delete', collectionOf(name), () => store.delete(ctx, name, etag)),
    list: (ctx, query) => traced(call, 'resources.list', query.collection, () => store.list(ctx, query)),
  };
}

function tracedTransactionResources(call: Call, store: TransactionResourceStore): TransactionResourceStore {
  return {
    ...tracedResources(call, store),
    getForUpdate: (ctx, name) => traced(call, 'resources.getForUpdate', collectionOf(name), () => store.getForUpdate(ctx, name)),
  };
}

function tracedBlobs(call: Call, blobs: BlobStore): BlobStore {
  const base: BlobStore = {
    put: (ctx, key, bytes, type) => traced(call, 'blobs.put', 'blobs', () => blobs.put(ctx, key, bytes, type)),
    putStream: (ctx, key, chunks, type) => traced(call, 'blobs.putStream', 'blobs', () => blobs.putStream(ctx, key, chunks, type)),
    get: (ctx, key) => traced(call, 'blobs.get', 'blobs', () => blobs.get(ctx, key)),
    head: (ctx, key) => traced(call, 'blobs.head', 'blobs', () => blobs.head(ctx, key)),
    // The span covers opening the read; the bytes stream afterwards, as the caller iterates them.
    getStream: (ctx, key, range) => traced(call, 'blobs.getStream', 'blobs', () => blobs.getStream(ctx, key, range)),
    delete: (ctx, key) => traced(call, 'blobs.delete', 'blobs', () => blobs.delete(ctx, key)),
    list: (ctx, prefix) => traced(call, 'blobs.list', 'blobs', () => blobs.list(ctx, prefix)),
  };
  const sweep = blobs.sweepAbandonedWrites?.bind(blobs);
  return sweep === undefined ? base : { ...base, sweepAbandonedWrites: (ctx, olderThan) => traced(call, 'blobs.sweepAbandonedWrites', 'blobs', () => sweep(ctx, olderThan)) };
}

function tracedQueue(call: Call, queue: JobQueue): JobQueue {
  const base: JobQueue = {
    enqueue: (ctx, request) => traced(call, 'queue.enqueue', request.queue, () => queue.enqueue(ctx, request)),
    claim: (ctx, name, worker, leaseMs) => traced(call, 'queue.claim', name, () => queue.claim(ctx, name, worker, leaseMs)),
    renew: (ctx, id, attempt, leaseMs) => traced(call, 'queue.renew', 'jobs', () => queue.renew(ctx, id, attempt, leaseMs)),
    complete: (ctx, id, attempt, result) => traced(call, 'queue.complete', 'jobs', () => queue.complete(ctx, id, attempt, result)),
    fail: (ctx, id, attempt, error, retryAt) => traced(call, 'queue.fail', 'jobs', () => queue.fail(ctx, id, attempt, error, retryAt)),
    get: (ctx, id) => traced(call, 'queue.get', 'jobs', () => queue.get(ctx, id)),
  };
  const release = queue.release?.bind(queue);
  return release === undefined ? base : { ...base, release: (ctx, id, attempt) => traced(call, 'queue.release', 'jobs', () => release(ctx, id, attempt)) };
}

function tracedOutbox(call: Call, outbox: Outbox): Outbox {
  return {
    publish: (ctx, topic, payload) => traced(call, 'outbox.publish', 'outbox', () => outbox.publish(ctx, topic, payload)),
    poll: (ctx, consumer, limit) => traced(call, 'outbox.poll', 'outbox', () => outbox.poll(ctx, consumer, limit)),
    ack: (ctx, consumer, sequence) => traced(call, 'outbox.ack', 'outbox', () => outbox.ack(ctx, consumer, sequence)),
    prune: (ctx, before) => traced(call, 'outbox.prune', 'outbox', () => outbox.prune(ctx, before)),
    removeConsumer: (ctx, consumer) => traced(call, 'outbox.removeConsumer', 'outbox', () => outbox.removeConsumer(ctx, consumer)),
  };
}

function tracedKv(call: Call, kv: KeyValueStore): KeyValueStore {
  return {
    get: (ctx, key) => traced(call, 'kv.get', 'kv', () => kv.get(ctx, key)),
    set: (ctx, key, value, options) => traced(call, 'kv.set', 'kv', () => kv.set(ctx, key, value, options)),
    delete: (ctx, key) => traced(call, 'kv.delete', 'kv', () => kv.delete(ctx, key)),
    increment: (ctx, key, by, ttlMs) => traced(call, 'kv.increment', 'kv', () => kv.increment(ctx, key, by, ttlMs)),
  };
}

function tracedTransaction(call: Call, tx: StorageTransaction): StorageTransaction {
  return {
    resources: tracedTransactionResources(call, tx.resources),
    queue: tracedQueue(call, tx.queue),
    outbox: tracedOutbox(call, tx.outbox),
    lock: (ctx, key) => traced(call, 'transaction.lock', undefined, () => tx.lock(ctx, key)),
  };
}

/**
 * `storage` with a span per storage call made inside a span (children of the active span: the request's, a
 * queue job's; calls outside any span are not traced): one per port operation, and one per transaction with
 * its operations as children. Kind CLIENT
 * for a store reached over the network, INTERNAL for one in process. Storage plugins wrap their store
 * with it only when `tracingEnabled()` said so at start-up, so without an SDK nothing changes.
 */
export function traceStorage(storage: Storage, system: StorageSystem, kind: SpanKind = system === 'memory' ? SpanKind.INTERNAL : SpanKind.CLIENT): Storage {
  const call: Call = { kind, system, options: new Map() };
  const stats = storage.stats?.bind(storage);
  const wrapped: Storage = {
    resources: tracedResources(call, storage.resources),
    blobs: tracedBlobs(call, storage.blobs),
    queue: tracedQueue(call, storage.queue),
    outbox: tracedOutbox(call, storage.outbox),
    kv: tracedKv(call, storage.kv),
    transaction: (ctx, work) => {
      if (!inTrace()) return storage.transaction(ctx, work);
      const span = started(call, 'transaction', undefined);
      // Active while `work` runs, so the calls it makes through `tx` are the transaction's children.
      const active = trace.setSpan(context.active(), span);
      return settle(span, () => storage.transaction(ctx, (tx) => context.with(active, () => work(tracedTransaction(call, tx)))));
    },
    ...(stats === undefined ? {} : { stats: (ctx) => traced(call, 'stats', undefined, () => stats(ctx)) }),
  };
  return wrapped;
}
