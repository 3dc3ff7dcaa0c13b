import type { RequestContext } from '../contracts/request-context.js';
import type { ListQuery } from '../contracts/list-query.js';
import type { JsonObject, JsonValue } from '../contracts/json.js';

/**
 * Storage ports. Every adapter (memory, PostgreSQL, third-party) implements all of them and proves it
 * with `describeStorageContract` from `@berth/core/testing`.
 *
 * Codes thrown by every method: ALREADY_EXISTS (create of an existing name), NOT_FOUND (update or
 * delete of a missing name), ABORTED (etag mismatch, serialization failure, fenced job attempt),
 * UNAVAILABLE (the backing store cannot be reached), INVALID_ARGUMENT (a value the backing store
 * cannot represent, e.g. NUL in a string on PostgreSQL; the validation layer refuses those first).
 * Never anything else for a well-formed call.
 */

/** A resource as stored: its JSON body plus the concurrency token. */
export interface StoredResource {
  /** Full resource name, `accounts/{account}/{collection}/{id}`. */
  readonly name: string;
  /**
   * The resource's JSON body (what the API returns, before masks). Read-only: adapters may hand out a
   * frozen shared object, so copy it (`structuredClone`) before changing it.
   */
  readonly data: JsonObject;
  /** Opaque version token; changes on every write. */
  readonly etag: string;
}

export type { ListQuery } from '../contracts/list-query.js';

export interface ListResult {
  readonly items: readonly StoredResource[];
  /** Number of resources in the parent and collection that match the filter (all pages). */
  readonly totalSize: number;
  /** True when items exist after the last one returned. */
  readonly hasMore: boolean;
}

export interface ResourceStore {
  /** Stores a new resource. ALREADY_EXISTS when the name is taken; concurrent creates: exactly one wins. */
  create(ctx: RequestContext, name: string, data: JsonObject): Promise<StoredResource>;
  get(ctx: RequestContext, name: string): Promise<StoredResource | undefined>;
  /**
   * Replaces the body if the stored etag still equals `expectedEtag` (checked in the same atomic step).
   * NOT_FOUND when absent; ABORTED when the etag differs (a concurrent writer won).
   */
  update(ctx: RequestContext, name: string, data: JsonObject, expectedEtag: string): Promise<StoredResource>;
  /** Removes the resource. NOT_FOUND when absent; ABORTED when `expectedEtag` is given and differs. */
  delete(ctx: RequestContext, name: string, expectedEtag?: string): Promise<void>;
  list(ctx: RequestContext, query: ListQuery): Promise<ListResult>;
}

export interface BlobObject {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly size: number;
  readonly createTime: string;
}

/** What a blob store records about an object, written with it and replaced with it. */
export interface BlobMetadata {
  readonly contentType: string;
  /** Bytes in the whole object. */
  readonly size: number;
  /** When this version of the object was written (RFC 3339, UTC). */
  readonly createTime: string;
  /** Lowercase hex SHA-256 of the whole object, computed by the store while the bytes were written. */
  readonly sha256: string;
}

/**
 * A byte range of an object: `length` bytes from `offset`, or everything from `offset` when `length` is
 * absent. Both are non-negative integers (INVALID_ARGUMENT otherwise); an `offset` past the end of the
 * object is OUT_OF_RANGE; a range reaching past the end is cut at the end.
 */
export interface BlobRange {
  readonly offset: number;
  readonly length?: number;
}

/** An object being read: its metadata, the range served, and the bytes as they come from the store. */
export interface BlobReadStream extends BlobMetadata {
  /** The first byte served (0 without a range). */
  readonly offset: number;
  /** Bytes `body` yields: the range cut at the end of the object. */
  readonly length: number;
  /**
   * The bytes of the range, in order, in chunks of bounded size (never the whole object at once).
   * Iterate it once; breaking off early releases whatever the store holds for it. The chunks belong to
   * the caller. A store that cannot finish (the object was replaced mid-read and its old bytes are
   * gone, the backend failed) throws from the iteration: ABORTED or UNAVAILABLE.
   */
  readonly body: AsyncIterable<Uint8Array>;
}

/**
 * Binary objects: dataset files, model files, generated images, batch outputs.
 *
 * **Keys** are `/`-separated paths of 1–1024 bytes (UTF-8): segments of 1–250 bytes, no empty segment
 * (so no leading, trailing or doubled `/`), no `.` or `..` segment, no backslash and no control characters.
 * Every method refuses another key with INVALID_ARGUMENT before touching the store
 * (`assertBlobKey` in `@berth/core`), so no key can reach outside the store (path traversal).
 *
 * **Writes** replace an object whole: a reader sees the old object or the new one, never a mix, and
 * concurrent writers of one key leave exactly one of their objects. Every write records the SHA-256
 * of the bytes.
 */
export interface BlobStore {
  put(ctx: RequestContext, key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /**
   * Stores the bytes as `chunks` yields them, never holding the whole object in the caller's memory
   * beyond what the store itself keeps, and answers the size stored. When the iteration or a write
   * fails, the error is rethrown and `key` holds either the previous object or none: the caller deletes
   * it when it wants neither.
   */
  putStream(ctx: RequestContext, key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<number>;
  /** The whole object in memory: for small objects only (images, batch chunks); large ones use `getStream`. */
  get(ctx: RequestContext, key: string): Promise<BlobObject | undefined>;
  /** The object's metadata, undefined when absent. */
  head(ctx: RequestContext, key: string): Promise<BlobMetadata | undefined>;
  /** Reads the object, or one range of it, as a stream; undefined when absent. */
  getStream(ctx: RequestContext, key: string, range?: BlobRange): Promise<BlobReadStream | undefined>;
  delete(ctx: RequestContext, key: string): Promise<boolean>;
  /**
   * Keys starting with `prefix` (a plain string prefix, not a pattern), sorted by UTF-16 code units.
   * The prefix is empty or a key's beginning: INVALID_ARGUMENT when it could not begin a valid key.
   */
  list(ctx: RequestContext, prefix: string): Promise<string[]>;
  /**
   * Optional: removes what writes that never finished left behind, older than `olderThan` (a filesystem
   * store's temporary files, PostgreSQL chunk rows no object references), and answers how many. The
   * scheduled blob sweep calls it; a store whose unfinished writes leave nothing omits it.
   */
  sweepAbandonedWrites?(ctx: RequestContext, olderThan: Date): Promise<number>;
}

export interface EnqueueRequest {
  readonly queue: string;
  readonly payload: JsonValue;
  /** Earliest time the job may run; now when absent. */
  readonly runAt?: Date;
  /** When given, a second enqueue with the same queue and key is ignored (returns the first job). */
  readonly dedupeKey?: string;
  /** Attempts before the job is dead-lettered; default 5. */
  readonly maxAttempts?: number;
}

export type QueuedJobState = 'queued' | 'leased' | 'completed' | 'failed';

export interface QueuedJob {
  readonly id: string;
  readonly queue: string;
  readonly payload: JsonValue;
  readonly state: QueuedJobState;
  /** 0 before the first claim; incremented by every claim. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly runAt: string;
  readonly leaseExpiresAt?: string;
  readonly lastError?: string;
  readonly result?: JsonValue;
}

/** A job handed to one worker. Its `attempt` fences every later call. */
export interface ClaimedJob extends QueuedJob {
  readonly state: 'leased';
  readonly leaseExpiresAt: string;
  readonly workerId: string;
}

/**
 * Durable job queue with leases and fencing. A job is claimed by one worker for a lease; a worker that
 * dies stops renewing, the lease expires and another claim takes the job with attempt + 1. Calls made
 * with an older attempt are rejected with ABORTED, so a stale worker can never overwrite a newer one.
 */
export interface JobQueue {
  enqueue(ctx: RequestContext, request: EnqueueRequest): Promise<QueuedJob>;
  /** Claims the oldest runnable job of the queue (queued and due, or leased with an expired lease). */
  claim(ctx: RequestContext, queue: string, workerId: string, leaseMs: number): Promise<ClaimedJob | undefined>;
  /** Extends the lease. ABORTED if the attempt is stale or the job is no longer leased. */
  renew(ctx: RequestContext, jobId: string, attempt: number, leaseMs: number): Promise<void>;
  /** Marks the job done. ABORTED if the attempt is stale. */
  complete(ctx: RequestContext, jobId: string, attempt: number, result?: JsonValue): Promise<void>;
  /**
   * Records a failed attempt: requeued at `retryAt` while attempts remain, else state `failed`.
   * ABORTED if the attempt is stale.
   */
  fail(ctx: RequestContext, jobId: string, attempt: number, error: string, retryAt?: Date): Promise<void>;
  /**
   * Gives back a claimed job that was never started (a worker that began stopping while its claim was in
   * flight): queued again at its place in line, its attempt not counted (the next claim gets the same
   * attempt number), lease, worker and last error as before the claim. ABORTED if the attempt is stale.
   * Optional for adapters written before it: without it, workers record such a job as a failed attempt,
   * due at once.
   */
  release?(ctx: RequestContext, jobId: string, attempt: number): Promise<void>;
  get(ctx: RequestContext, jobId: string): Promise<QueuedJob | undefined>;
}

/**
 * Gives back a claimed job that was never started: {@link JobQueue.release} when the adapter has it,
 * else a failed attempt due at once (the attempt then counts).
 */
export function releaseUnstartedJob(queue: JobQueue, ctx: RequestContext, jobId: string, attempt: number): Promise<void> {
  return queue.release !== undefined
    ? queue.release(ctx, jobId, attempt)
    : queue.fail(ctx, jobId, attempt, 'the worker stopped before running this attempt');
}

export interface OutboxEvent {
  /** Monotonic per store. */
  readonly sequence: number;
  readonly topic: string;
  readonly payload: JsonValue;
  readonly createTime: string;
}

/** Events written with the change that caused them, read by consumers that remember their position. */
export interface Outbox {
  publish(ctx: RequestContext, topic: string, payload: JsonValue): Promise<void>;
  /** Events after the consumer's acknowledged position, oldest first. */
  poll(ctx: RequestContext, consumer: string, limit: number): Promise<OutboxEvent[]>;
  /** Moves the consumer's position to `sequence` (never backwards). */
  ack(ctx: RequestContext, consumer: string, sequence: number): Promise<void>;
  /**
   * Removes events created before `createdBefore` (retention), whether or not consumers read them, and
   * returns how many. Sequences of later events are unchanged.
   */
  prune(ctx: RequestContext, createdBefore: Date): Promise<number>;
  /**
   * Removes the consumer's position, for a consumer that will never read again (e.g. one named per
   * process, when the process stops). An unknown consumer is ignored; a later poll reads from the start.
   */
  removeConsumer(ctx: RequestContext, consumer: string): Promise<void>;
}

/** Small values with optional expiry: idempotency records, rate-limit counters, settings. */
export interface KeyValueStore {
  get(ctx: RequestContext, key: string): Promise<JsonValue | undefined>;
  /** Writes the value. With `ifAbsent`, writes only when no live value exists and reports whether it wrote. */
  set(ctx: RequestContext, key: string, value: JsonValue, options?: { ttlMs?: number; ifAbsent?: boolean }): Promise<boolean>;
  delete(ctx: RequestContext, key: string): Promise<boolean>;
  /** Atomically adds `by` to a numeric value (0 when absent or expired) and returns the new value. */
  increment(ctx: RequestContext, key: string, by: number, ttlMs?: number): Promise<number>;
}

/** The resource store of a transaction: adds a read that locks what it read. */
export interface TransactionResourceStore extends ResourceStore {
  /**
   * Reads `name` and makes every other writer of it, and every other `getForUpdate` of it, wait until
   * this transaction ends. A read-modify-write in the transaction therefore cannot lose to a concurrent
   * one: the etag read is still current when the transaction writes with it. Undefined when absent.
   */
  getForUpdate(ctx: RequestContext, name: string): Promise<StoredResource | undefined>;
}

/**
 * What a transaction may touch: resource changes, jobs and events commit or roll back together.
 *
 * **Invariants that span records** (an account keeps at least one admin; API-key secrets are unique;
 * anything similar later) are enforced with {@link StorageTransaction.lock}: every write that could
 * break the invariant runs in a transaction that
 *   1. first takes the invariant's lock, `tx.lock(ctx, '<invariant>:<scope>')`, e.g.
 *      `last-admin:accounts/acme` (before any `getForUpdate`, so locks are always taken in the same
 *      order and cannot deadlock);
 *   2. then reads what the rule needs through `tx` and checks it;
 *   3. then writes through `tx`.
 * Holders of one key run one after another, and each sees every write the previous holders committed,
 * so two writers can never both pass a check that only one of them may pass. Adapters choose how
 * (PostgreSQL: a transaction-scoped advisory lock; memory: transactions already run one at a time); the
 * storage contract races such writers to prove it.
 */
export interface StorageTransaction {
  readonly resources: TransactionResourceStore;
  readonly queue: JobQueue;
  readonly outbox: Outbox;
  /**
   * Takes the exclusive lock named `key` until the transaction commits or rolls back; another
   * transaction asking for the same key waits for it. Keys are free-form strings, `<invariant>:<scope>`
   * by convention. Taking a key the transaction already holds returns at once.
   */
  lock(ctx: RequestContext, key: string): Promise<void>;
}

/** The storage port: one object per gateway, provided by a storage plugin. */
export interface Storage {
  readonly resources: ResourceStore;
  readonly blobs: BlobStore;
  readonly queue: JobQueue;
  readonly outbox: Outbox;
  readonly kv: KeyValueStore;
  /**
   * Runs `work` atomically: if it throws, nothing it wrote through `tx` persists. Adapters may retry
   * serialization failures; a conflict that survives is ABORTED.
   */
  transaction<T>(ctx: RequestContext, work: (tx: StorageTransaction) => Promise<T>): Promise<T>;
  /** Operational figures for metrics and readiness (optional: adapters without it report nothing). */
  stats?(ctx: RequestContext): Promise<StorageStats>;
}

/** What {@link Storage.stats} reports. */
export interface StorageStats {
  /** Jobs that are not completed, counted by queue and state (completed jobs are left out: they only accumulate). */
  readonly jobs: readonly { readonly queue: string; readonly state: Exclude<QueuedJobState, 'completed'>; readonly count: number }[];
  /** The connection pool, for adapters that have one. */
  readonly pool?: { readonly total: number; readonly idle: number; readonly waiting: number; readonly max: number };
}
