import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  aborted,
  alreadyExists,
  compareSortKeys,
  evaluateFilter,
  notFound,
  readPath,
  sortKeyOf,
  type CheckedFilter,
  type BlobObject,
  type BlobStore,
  type ClaimedJob,
  type EnqueueRequest,
  type JobQueue,
  type JsonObject,
  type JsonValue,
  type KeyValueStore,
  type ListQuery,
  type ListResult,
  type Outbox,
  type OutboxEvent,
  type QueuedJob,
  type QueuedJobState,
  type RequestContext,
  type ResourceStore,
  type Storage,
  type StorageTransaction,
  type StoredResource,
} from '@berth/core';
import { AsyncMutex } from './async-mutex.js';
import { splitResourceName } from './resource-name.js';

export interface MemoryStorageOptions {
  /** Clock in epoch milliseconds, for leases, expiries and timestamps. Default `Date.now`. */
  readonly now?: () => number;
}

const DEFAULT_MAX_ATTEMPTS = 5;

interface ResourceRecord {
  readonly name: string;
  readonly parent: string;
  readonly collection: string;
  readonly data: JsonObject;
  readonly version: number;
}

interface JobRecord {
  readonly id: string;
  readonly queue: string;
  readonly payload: JsonValue;
  readonly state: QueuedJobState;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly runAt: number;
  readonly leaseExpiresAt?: number;
  readonly workerId?: string;
  readonly lastError?: string;
  readonly result?: JsonValue;
  readonly dedupeKey?: string;
  /** Enqueue order: the tiebreaker between jobs due at the same time. */
  readonly order: number;
}

interface KvRecord {
  readonly value: JsonValue;
  readonly expiresAt?: number;
}

const noNames: ReadonlySet<string> = new Set();

/** Everything the store holds. Plain maps: one process, no persistence. */
class MemoryState {
  readonly resources = new Map<string, ResourceRecord>();
  /** `parent\u0000collection` → names: a list reads only its own collection. */
  private readonly collections = new Map<string, Set<string>>();

  /**
   * Equality indexes, built on first use per collection and field path: value → names. A list whose
   * filter is (or ANDs) `field = "literal"` on a string or enum field visits only those names.
   */
  private readonly equalityIndexes = new Map<string, Map<string, Map<string, Set<string>>>>();

  private indexedValue(record: ResourceRecord, path: string): string | undefined {
    const value = readPath(listingView(record), path.split('.'));
    return typeof value === 'string' ? value : undefined;
  }

  private addToEqualityIndexes(record: ResourceRecord): void {
    const byPath = this.equalityIndexes.get(`${record.parent}\u0000${record.collection}`);
    if (!byPath) return;
    for (const [path, byValue] of byPath) {
      const value = this.indexedValue(record, path);
      if (value === undefined) continue;
      let names = byValue.get(value);
      if (!names) {
        names = new Set();
        byValue.set(value, names);
      }
      names.add(record.name);
    }
  }

  private removeFromEqualityIndexes(record: ResourceRecord): void {
    const byPath = this.equalityIndexes.get(`${record.parent}\u0000${record.collection}`);
    if (!byPath) return;
    for (const [path, byValue] of byPath) {
      const value = this.indexedValue(record, path);
      if (value !== undefined) byValue.get(value)?.delete(record.name);
    }
  }

  /** Names in the collection whose `path` holds exactly `value` (builds the index on first use). */
  namesWhere(parent: string, collection: string, path: string, value: string): ReadonlySet<string> {
    const key = `${parent}\u0000${collection}`;
    let byPath = this.equalityIndexes.get(key);
    if (!byPath) {
      byPath = new Map();
      this.equalityIndexes.set(key, byPath);
    }
    let byValue = byPath.get(path);
    if (!byValue) {
      byValue = new Map();
      byPath.set(path, byValue);
      for (const name of this.namesIn(parent, collection)) {
        const record = this.resources.get(name);
        const v = record ? this.indexedValue(record, path) : undefined;
        if (record === undefined || v === undefined) continue;
        let names = byValue.get(v);
        if (!names) {
          names = new Set();
          byValue.set(v, names);
        }
        names.add(name);
      }
    }
    return byValue.get(value) ?? noNames;
  }

  /** Keeps the equality indexes right when a record's body changes. */
  replaced(previous: ResourceRecord, next: ResourceRecord): void {
    this.removeFromEqualityIndexes(previous);
    this.addToEqualityIndexes(next);
  }

  index(record: ResourceRecord): void {
    this.addToEqualityIndexes(record);
    const key = `${record.parent}\u0000${record.collection}`;
    let names = this.collections.get(key);
    if (names === undefined) {
      names = new Set();
      this.collections.set(key, names);
    }
    names.add(record.name);
  }

  unindex(record: ResourceRecord): void {
    this.removeFromEqualityIndexes(record);
    this.collections.get(`${record.parent}\u0000${record.collection}`)?.delete(record.name);
  }

  namesIn(parent: string, collection: string): ReadonlySet<string> {
    return this.collections.get(`${parent}\u0000${collection}`) ?? noNames;
  }
  readonly blobs = new Map<string, BlobObject>();
  readonly jobs = new Map<string, JobRecord>();
  /** `queue\u0000dedupeKey` → job id. */
  readonly dedupe = new Map<string, string>();
  readonly events: OutboxEvent[] = [];
  readonly positions = new Map<string, number>();
  readonly kv = new Map<string, KvRecord>();
  /** Global, so an etag is never reused, not even by a resource re-created under the same name. */
  version = 0;
  jobOrder = 0;
  sequence = 0;

  constructor(readonly now: () => number) {}
}

/** Undo actions of a transaction, replayed newest first on rollback. */
type UndoLog = (() => void)[];

/**
 * How a store runs a write. Root stores take the transaction mutex (so a write never interleaves with
 * an open transaction that might roll back over it); transaction stores already hold it and log undo
 * actions.
 */
interface WriteScope {
  write<T>(change: (undo: UndoLog | undefined) => T): Promise<T>;
}

const clone = <T extends JsonValue>(value: T): T => structuredClone(value);

/** Deep-freezes a stored body, so reads can hand it out without copying and no caller can change it in place. */
function deepFreeze<T extends JsonValue>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child as JsonValue);
    Object.freeze(value);
  }
  return value;
}
const freezeCopy = <T extends JsonValue>(value: T): T => deepFreeze(clone(value));

const iso = (ms: number): string => new Date(ms).toISOString();

/** Stored bodies are frozen at write time: reads share them instead of copying (writes copy the caller's). */
function toStored(record: ResourceRecord): StoredResource {
  return { name: record.name, data: record.data, etag: String(record.version) };
}

/**
 * Sort keys memoized per stored body: bodies are frozen, so a key computed once stays right. Keyed by
 * the order's field paths and directions, so different orders of one collection do not collide.
 */
const sortKeyCache = new WeakMap<JsonObject, Map<string, JsonValue[]>>();
/** `compute`, remembered per argument object (for long-lived, read-only arguments: parsed orders, field declarations). */
function memoizedByObject<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const memo = new WeakMap<K, V>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      value = compute(key);
      memo.set(key, value);
    }
    return value;
  };
}
/** The signature of an order (parsed orders are shared across requests, so this is computed once each). */
const orderSignature = memoizedByObject((orderBy: ListQuery['orderBy']) =>
  orderBy.map((t) => `${t.declaration.path.join('.')}:${t.declaration.type}`).join(','));
/** A declaration's dotted path. */
const dottedPath = memoizedByObject((declaration: { readonly path: readonly string[] }) => declaration.path.join('.'));
function cachedSortKey(data: JsonObject, orderBy: ListQuery['orderBy'], signature: string): JsonValue[] {
  if (!Object.isFrozen(data)) return sortKeyOf(data, orderBy);
  let perOrder = sortKeyCache.get(data);
  if (perOrder === undefined) {
    perOrder = new Map();
    sortKeyCache.set(data, perOrder);
  }
  let key = perOrder.get(signature);
  if (key === undefined) {
    key = sortKeyOf(data, orderBy);
    perOrder.set(signature, key);
  }
  return key;
}

/**
 * A `field = "literal"` clause the filter requires (top level, or one operand of a top-level AND) on a
 * string or enum field: the list can start from the equality index. The whole filter still runs on
 * every candidate.
 */
function indexableEquality(filter: CheckedFilter): { path: string; value: string } | undefined {
  const clauses = filter.kind === 'and' ? filter.operands : [filter];
  for (const clause of clauses) {
    if (clause.kind !== 'compare' || clause.operator !== '=' || clause.field.mapKey !== undefined) continue;
    const { declaration } = clause.field;
    if (declaration.repeated || (declaration.type !== 'string' && declaration.type !== 'enum')) continue;
    const value = clause.value;
    if (value.type === 'string' && !value.wildcard) return { path: dottedPath(declaration), value: value.value };
    if (value.type === 'enum') return { path: dottedPath(declaration), value: value.value };
  }
  return undefined;
}

/** The body that filters and sort keys see: `name` is always the stored name (the unique tiebreaker). */
function listingView(record: ResourceRecord): JsonObject {
  if (record.data.name === record.name) return record.data;
  const view: JsonObject = { ...record.data };
  Object.defineProperty(view, 'name', { value: record.name, writable: true, enumerable: true, configurable: true });
  return view;
}

class MemoryResourceStore implements ResourceStore {
  constructor(
    private readonly state: MemoryState,
    private readonly scope: WriteScope,
  ) {}

  create(_ctx: RequestContext, name: string, data: JsonObject): Promise<StoredResource> {
    return this.scope.write((undo) => {
      const { resources } = this.state;
      if (resources.has(name)) throw alreadyExists(name);
      const record: ResourceRecord = { name, ...splitResourceName(name), data: freezeCopy(data), version: ++this.state.version };
      resources.set(name, record);
      this.state.index(record);
      undo?.push(() => {
        resources.delete(name);
        this.state.unindex(record);
      });
      return toStored(record);
    });
  }

  async get(_ctx: RequestContext, name: string): Promise<StoredResource | undefined> {
    const record = this.state.resources.get(name);
    return record === undefined ? undefined : toStored(record);
  }

  update(_ctx: RequestContext, name: string, data: JsonObject, expectedEtag: string): Promise<StoredResource> {
    return this.scope.write((undo) => {
      const { resources } = this.state;
      const previous = resources.get(name);
      if (previous === undefined) throw notFound(name);
      if (String(previous.version) !== expectedEtag) throw aborted(`${name} was changed concurrently (etag mismatch)`, { reason: 'ETAG_MISMATCH' });
      const record: ResourceRecord = { ...previous, data: freezeCopy(data), version: ++this.state.version };
      resources.set(name, record);
      this.state.replaced(previous, record);
      undo?.push(() => {
        resources.set(name, previous);
        this.state.replaced(record, previous);
      });
      return toStored(record);
    });
  }

  delete(_ctx: RequestContext, name: string, expectedEtag?: string): Promise<void> {
    return this.scope.write((undo) => {
      const { resources } = this.state;
      const previous = resources.get(name);
      if (previous === undefined) throw notFound(name);
      if (expectedEtag !== undefined && String(previous.version) !== expectedEtag) {
        throw aborted(`${name} was changed concurrently (etag mismatch)`, { reason: 'ETAG_MISMATCH' });
      }
      resources.delete(name);
      this.state.unindex(previous);
      undo?.push(() => {
        resources.set(name, previous);
        this.state.index(previous);
      });
    });
  }

  async list(_ctx: RequestContext, query: ListQuery): Promise<ListResult> {
    const equality = query.filter ? indexableEquality(query.filter) : undefined;
    const candidates = equality
      ? this.state.namesWhere(query.parent, query.collection, equality.path, equality.value)
      : this.state.namesIn(query.parent, query.collection);
    // Nothing to look at (e.g. a model's deployed models, looked up on every GET of a model without any).
    if (candidates.size === 0) return { items: [], totalSize: 0, hasMore: false };
    const matching: { record: ResourceRecord; key: JsonValue[] }[] = [];
    const signature = orderSignature(query.orderBy);
    for (const name of candidates) {
      const record = this.state.resources.get(name);
      if (record === undefined) continue;
      const view = listingView(record);
      if (query.filter !== undefined && !evaluateFilter(query.filter, view)) continue;
      matching.push({ record, key: cachedSortKey(view, query.orderBy, signature) });
    }
    matching.sort((a, b) => compareSortKeys(a.key, b.key, query.orderBy));
    const after = query.after;
    const remaining = after === undefined ? matching : matching.filter((m) => compareSortKeys(m.key, after, query.orderBy) > 0);
    const page = remaining.slice(0, Math.max(0, query.pageSize));
    return {
      items: page.map((m) => toStored(m.record)),
      totalSize: matching.length,
      hasMore: remaining.length > page.length,
    };
  }
}

class MemoryBlobStore implements BlobStore {
  constructor(private readonly state: MemoryState) {}

  async put(_ctx: RequestContext, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    this.state.blobs.set(key, { bytes: new Uint8Array(bytes), contentType, size: bytes.byteLength, createTime: iso(this.state.now()) });
  }

  async get(_ctx: RequestContext, key: string): Promise<BlobObject | undefined> {
    const blob = this.state.blobs.get(key);
    return blob === undefined ? undefined : { ...blob, bytes: new Uint8Array(blob.bytes) };
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    return this.state.blobs.delete(key);
  }

  async list(_ctx: RequestContext, prefix: string): Promise<string[]> {
    // Default sort compares UTF-16 code units, the order the port promises.
    return [...this.state.blobs.keys()].filter((key) => key.startsWith(prefix)).sort();
  }
}

function toJob(record: JobRecord): QueuedJob {
  return {
    id: record.id,
    queue: record.queue,
    payload: clone(record.payload),
    state: record.state,
    attempt: record.attempt,
    maxAttempts: record.maxAttempts,
    runAt: iso(record.runAt),
    ...(record.leaseExpiresAt === undefined ? {} : { leaseExpiresAt: iso(record.leaseExpiresAt) }),
    ...(record.lastError === undefined ? {} : { lastError: record.lastError }),
    ...(record.result === undefined ? {} : { result: clone(record.result) }),
  };
}

class MemoryJobQueue implements JobQueue {
  constructor(
    private readonly state: MemoryState,
    private readonly scope: WriteScope,
  ) {}

  private replace(undo: UndoLog | undefined, previous: JobRecord, next: JobRecord): void {
    this.state.jobs.set(next.id, next);
    undo?.push(() => this.state.jobs.set(previous.id, previous));
  }

  /** The job at `attempt` if it is still leased to that attempt; NOT_FOUND / ABORTED otherwise. */
  private fenced(jobId: string, attempt: number): JobRecord {
    const job = this.state.jobs.get(jobId);
    if (job === undefined) throw notFound(`job ${jobId}`);
    if (job.attempt !== attempt || job.state !== 'leased') {
      throw aborted(`job ${jobId} attempt ${attempt} is no longer current (attempt ${job.attempt}, ${job.state})`, { reason: 'STALE_ATTEMPT' });
    }
    return job;
  }

  enqueue(_ctx: RequestContext, request: EnqueueRequest): Promise<QueuedJob> {
    return this.scope.write((undo) => {
      const { jobs, dedupe } = this.state;
      const dedupeId = request.dedupeKey === undefined ? undefined : `${request.queue}\u0000${request.dedupeKey}`;
      if (dedupeId !== undefined) {
        const existing = jobs.get(dedupe.get(dedupeId) ?? '');
        if (existing !== undefined) return toJob(existing);
      }
      const record: JobRecord = {
        id: randomUUID(),
        queue: request.queue,
        payload: clone(request.payload),
        state: 'queued',
        attempt: 0,
        maxAttempts: request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        runAt: request.runAt?.getTime() ?? this.state.now(),
        order: ++this.state.jobOrder,
        ...(request.dedupeKey === undefined ? {} : { dedupeKey: request.dedupeKey }),
      };
      jobs.set(record.id, record);
      if (dedupeId !== undefined) dedupe.set(dedupeId, record.id);
      undo?.push(() => {
        jobs.delete(record.id);
        if (dedupeId !== undefined) dedupe.delete(dedupeId);
      });
      return toJob(record);
    });
  }

  claim(_ctx: RequestContext, queue: string, workerId: string, leaseMs: number): Promise<ClaimedJob | undefined> {
    return this.scope.write((undo) => {
      const now = this.state.now();
      let best: JobRecord | undefined;
      for (const job of this.state.jobs.values()) {
        if (job.queue !== queue) continue;
        const expired = job.state === 'leased' && (job.leaseExpiresAt ?? 0) <= now;
        if (expired && job.attempt >= job.maxAttempts) {
          // The final attempt's worker vanished: dead-letter instead of running it once too often.
          const { leaseExpiresAt: _lease, workerId: _worker, ...rest } = job;
          this.replace(undo, job, { ...rest, state: 'failed', lastError: job.lastError ?? 'lease expired on the final attempt' });
          continue;
        }
        const runnable = (job.state === 'queued' && job.runAt <= now) || expired;
        if (!runnable) continue;
        if (best === undefined || job.runAt < best.runAt || (job.runAt === best.runAt && job.order < best.order)) best = job;
      }
      if (best === undefined) return undefined;
      const claimed: JobRecord = { ...best, state: 'leased', attempt: best.attempt + 1, leaseExpiresAt: now + leaseMs, workerId };
      this.replace(undo, best, claimed);
      return { ...toJob(claimed), state: 'leased', leaseExpiresAt: iso(now + leaseMs), workerId };
    });
  }

  renew(_ctx: RequestContext, jobId: string, attempt: number, leaseMs: number): Promise<void> {
    return this.scope.write((undo) => {
      const job = this.fenced(jobId, attempt);
      this.replace(undo, job, { ...job, leaseExpiresAt: this.state.now() + leaseMs });
    });
  }

  complete(_ctx: RequestContext, jobId: string, attempt: number, result?: JsonValue): Promise<void> {
    return this.scope.write((undo) => {
      const job = this.fenced(jobId, attempt);
      const { leaseExpiresAt: _lease, workerId: _worker, ...rest } = job;
      this.replace(undo, job, { ...rest, state: 'completed', ...(result === undefined ? {} : { result: clone(result) }) });
    });
  }

  fail(_ctx: RequestContext, jobId: string, attempt: number, error: string, retryAt?: Date): Promise<void> {
    return this.scope.write((undo) => {
      const job = this.fenced(jobId, attempt);
      const { leaseExpiresAt: _lease, workerId: _worker, ...rest } = job;
      const next: JobRecord =
        job.attempt < job.maxAttempts
          ? { ...rest, state: 'queued', lastError: error, runAt: retryAt?.getTime() ?? this.state.now() }
          : { ...rest, state: 'failed', lastError: error };
      this.replace(undo, job, next);
    });
  }

  async get(_ctx: RequestContext, jobId: string): Promise<QueuedJob | undefined> {
    const job = this.state.jobs.get(jobId);
    return job === undefined ? undefined : toJob(job);
  }
}

class MemoryOutbox implements Outbox {
  constructor(
    private readonly state: MemoryState,
    private readonly scope: WriteScope,
  ) {}

  publish(_ctx: RequestContext, topic: string, payload: JsonValue): Promise<void> {
    return this.scope.write((undo) => {
      const event: OutboxEvent = { sequence: ++this.state.sequence, topic, payload: clone(payload), createTime: iso(this.state.now()) };
      this.state.events.push(event);
      undo?.push(() => {
        const index = this.state.events.indexOf(event);
        if (index >= 0) this.state.events.splice(index, 1);
      });
    });
  }

  async poll(_ctx: RequestContext, consumer: string, limit: number): Promise<OutboxEvent[]> {
    const position = this.state.positions.get(consumer) ?? 0;
    const out: OutboxEvent[] = [];
    for (const event of this.state.events) {
      if (out.length >= limit) break;
      if (event.sequence > position) out.push({ ...event, payload: clone(event.payload) });
    }
    return out;
  }

  prune(_ctx: RequestContext, createdBefore: Date): Promise<number> {
    return this.scope.write((undo) => {
      const cutoff = createdBefore.getTime();
      const removed = this.state.events.filter((event) => Date.parse(event.createTime) < cutoff);
      if (removed.length === 0) return 0;
      const kept = this.state.events.filter((event) => Date.parse(event.createTime) >= cutoff);
      this.state.events.splice(0, this.state.events.length, ...kept);
      undo?.push(() => {
        this.state.events.push(...removed);
        this.state.events.sort((a, b) => a.sequence - b.sequence);
      });
      return removed.length;
    });
  }

  ack(_ctx: RequestContext, consumer: string, sequence: number): Promise<void> {
    return this.scope.write((undo) => {
      const { positions } = this.state;
      const previous = positions.get(consumer);
      if (previous !== undefined && previous >= sequence) return;
      positions.set(consumer, sequence);
      undo?.push(() => (previous === undefined ? positions.delete(consumer) : positions.set(consumer, previous)));
    });
  }
}

class MemoryKeyValueStore implements KeyValueStore {
  constructor(private readonly state: MemoryState) {}

  private live(key: string): KvRecord | undefined {
    const record = this.state.kv.get(key);
    if (record === undefined) return undefined;
    if (record.expiresAt !== undefined && record.expiresAt <= this.state.now()) {
      this.state.kv.delete(key);
      return undefined;
    }
    return record;
  }

  private expiry(ttlMs: number | undefined): { expiresAt?: number } {
    return ttlMs === undefined ? {} : { expiresAt: this.state.now() + ttlMs };
  }

  async get(_ctx: RequestContext, key: string): Promise<JsonValue | undefined> {
    const record = this.live(key);
    return record === undefined ? undefined : clone(record.value);
  }

  async set(_ctx: RequestContext, key: string, value: JsonValue, options?: { ttlMs?: number; ifAbsent?: boolean }): Promise<boolean> {
    if (options?.ifAbsent === true && this.live(key) !== undefined) return false;
    this.state.kv.set(key, { value: clone(value), ...this.expiry(options?.ttlMs) });
    return true;
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    const existed = this.live(key) !== undefined;
    this.state.kv.delete(key);
    return existed;
  }

  async increment(_ctx: RequestContext, key: string, by: number, ttlMs?: number): Promise<number> {
    const record = this.live(key);
    if (record === undefined) {
      this.state.kv.set(key, { value: by, ...this.expiry(ttlMs) });
      return by;
    }
    // A live counter keeps its expiry: the ttl opens a window, later increments do not extend it.
    const value = (typeof record.value === 'number' ? record.value : 0) + by;
    this.state.kv.set(key, { ...record, value });
    return value;
  }
}

/**
 * Every storage port in process memory: the embedded default, and the reference the contract suite is
 * written against. Nothing survives a restart.
 *
 * Transactions hold one mutex for their whole duration and keep an undo log that is replayed if the
 * work throws. Writes made outside a transaction wait for the mutex, so a rollback never overwrites them.
 * Reads do not wait, and may see a running transaction's writes (read-uncommitted): acceptable for the
 * single-process store this is. A write through the root store made inside a transaction's work runs
 * at once and is not rolled back (like a write on another connection of a database).
 */
export class MemoryStorage implements Storage {
  readonly resources: ResourceStore;
  readonly blobs: BlobStore;
  readonly queue: JobQueue;
  readonly outbox: Outbox;
  readonly kv: KeyValueStore;

  private readonly state: MemoryState;
  private readonly mutex = new AsyncMutex();
  /** The undo log of the transaction the current async call chain runs in, if any. */
  private readonly current = new AsyncLocalStorage<UndoLog>();

  constructor(options: MemoryStorageOptions = {}) {
    this.state = new MemoryState(options.now ?? Date.now);
    const root: WriteScope = {
      write: async (change) => {
        if (this.current.getStore() !== undefined) return change(undefined);
        return this.mutex.run(() => change(undefined));
      },
    };
    this.resources = new MemoryResourceStore(this.state, root);
    this.blobs = new MemoryBlobStore(this.state);
    this.queue = new MemoryJobQueue(this.state, root);
    this.outbox = new MemoryOutbox(this.state, root);
    this.kv = new MemoryKeyValueStore(this.state);
  }

  async transaction<T>(_ctx: RequestContext, work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
    const outer = this.current.getStore();
    if (outer !== undefined) return this.runWithUndo(work, outer);
    return this.mutex.run(() => this.runWithUndo(work, undefined));
  }

  /** Runs `work` with its own undo log; a nested transaction hands its log to the outer one on success. */
  private async runWithUndo<T>(work: (tx: StorageTransaction) => Promise<T>, outer: UndoLog | undefined): Promise<T> {
    const undo: UndoLog = [];
    const scope: WriteScope = { write: async (change) => change(undo) };
    const tx: StorageTransaction = {
      resources: new MemoryResourceStore(this.state, scope),
      queue: new MemoryJobQueue(this.state, scope),
      outbox: new MemoryOutbox(this.state, scope),
    };
    try {
      const result = await this.current.run(undo, () => work(tx));
      outer?.push(...undo);
      return result;
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i--) undo[i]?.();
      throw error;
    }
  }
}
