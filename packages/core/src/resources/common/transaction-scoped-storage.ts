import type { RequestContext } from '../../kernel/request-context.js';
import {
  releaseUnstartedJob, type BlobStore, type JobQueue, type KeyValueStore, type Outbox, type ResourceStore, type Storage, type StorageTransaction,
} from '../../ports/storage.js';

/** An open transaction; `open` turns false once it committed or rolled back. */
interface OpenTransaction {
  readonly tx: StorageTransaction;
  open: boolean;
}

/**
 * The context a transaction hands its work: the caller's context (every field read through to it, so
 * a lazily made signal stays the caller's), with an identity of its own that binds it to the transaction.
 */
class TransactionContext implements RequestContext {
  constructor(private readonly outer: RequestContext) {}

  get requestId(): string {
    return this.outer.requestId;
  }

  get principal(): RequestContext['principal'] {
    return this.outer.principal;
  }

  get signal(): AbortSignal | undefined {
    return this.outer.signal;
  }

  get deadline(): number | undefined {
    return this.outer.deadline;
  }
}

/** The work of a transaction: it gets the transaction and the context that joins it. */
export type TransactionWork<T> = (tx: StorageTransaction, txCtx: RequestContext) => Promise<T>;

/**
 * A `Storage` view whose resource, queue and outbox calls join a transaction when they are made with
 * the context that transaction handed its work. `transaction(ctx, work)` calls `work(tx, txCtx)`:
 * `txCtx` is a new context (it reads everything through to `ctx`) bound to `tx`, so a call made with it
 * anywhere below (a rule reading another record, a nested `transaction(txCtx, ...)`) runs in that
 * transaction, and a call made with any other context runs on the root store.
 *
 * The binding is explicit, carried by the context each call already takes: no async-context state
 * (an `AsyncLocalStorage` turns on promise hooks for the whole process, which every `await` pays for).
 * It lets a `ResourceService` run its read-check-write in one transaction, so a check that reads
 * other records (e.g. "another admin exists") commits atomically with the write, and rules that read
 * while a transaction holds a connection never ask the pool for a second one (on a pool of one, such
 * as PGlite's or the memory store's, that would wait forever). A context used after its transaction
 * ended falls back to the root store.
 */
export class TransactionScopedStorage implements Storage {
  private readonly bound = new WeakMap<RequestContext, OpenTransaction>();
  readonly resources: ResourceStore;
  readonly queue: JobQueue;
  readonly outbox: Outbox;

  /** `storage` itself when it already is a transaction-scoped view, else a new view over it. */
  static over(storage: Storage): TransactionScopedStorage {
    return storage instanceof TransactionScopedStorage ? storage : new TransactionScopedStorage(storage);
  }

  constructor(private readonly root: Storage) {
    const scope = (ctx: RequestContext): Pick<Storage, 'resources' | 'queue' | 'outbox'> => {
      const running = this.bound.get(ctx);
      return running?.open === true ? running.tx : root;
    };
    this.resources = {
      create: (ctx, name, data) => scope(ctx).resources.create(ctx, name, data),
      get: (ctx, name) => scope(ctx).resources.get(ctx, name),
      update: (ctx, name, data, etag) => scope(ctx).resources.update(ctx, name, data, etag),
      delete: (ctx, name, etag) => scope(ctx).resources.delete(ctx, name, etag),
      list: (ctx, query) => scope(ctx).resources.list(ctx, query),
    };
    this.queue = {
      enqueue: (ctx, request) => scope(ctx).queue.enqueue(ctx, request),
      claim: (ctx, queue, workerId, leaseMs) => scope(ctx).queue.claim(ctx, queue, workerId, leaseMs),
      renew: (ctx, jobId, attempt, leaseMs) => scope(ctx).queue.renew(ctx, jobId, attempt, leaseMs),
      complete: (ctx, jobId, attempt, result) => scope(ctx).queue.complete(ctx, jobId, attempt, result),
      fail: (ctx, jobId, attempt, error, retryAt) => scope(ctx).queue.fail(ctx, jobId, attempt, error, retryAt),
      get: (ctx, jobId) => scope(ctx).queue.get(ctx, jobId),
      // Only when the adapter has it (a transaction's queue is the same adapter's), so callers can fall back.
      ...(root.queue.release === undefined ? {} : { release: (ctx: RequestContext, jobId: string, attempt: number) => releaseUnstartedJob(scope(ctx).queue, ctx, jobId, attempt) }),
    };
    this.outbox = {
      publish: (ctx, topic, payload) => scope(ctx).outbox.publish(ctx, topic, payload),
      poll: (ctx, consumer, limit) => scope(ctx).outbox.poll(ctx, consumer, limit),
      ack: (ctx, consumer, sequence) => scope(ctx).outbox.ack(ctx, consumer, sequence),
      prune: (ctx, createdBefore) => scope(ctx).outbox.prune(ctx, createdBefore),
      removeConsumer: (ctx, consumer) => scope(ctx).outbox.removeConsumer(ctx, consumer),
    };
  }

  get blobs(): BlobStore {
    return this.root.blobs;
  }

  get kv(): KeyValueStore {
    return this.root.kv;
  }

  /**
   * Runs `work` in a root transaction and hands it a context bound to that transaction; with a context
   * already bound to an open transaction, joins it (`work` gets the same transaction and context).
   */
  transaction<T>(ctx: RequestContext, work: TransactionWork<T>): Promise<T> {
    const running = this.bound.get(ctx);
    if (running?.open === true) return work(running.tx, ctx);
    return this.root.transaction(ctx, async (tx) => {
      const opened: OpenTransaction = { tx, open: true };
      const txCtx = new TransactionContext(ctx);
      this.bound.set(txCtx, opened);
      try {
        return await work(tx, txCtx);
      } finally {
        opened.open = false;
      }
    });
  }
}
