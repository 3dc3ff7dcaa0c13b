import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestContext } from '../../kernel/request-context.js';
import type {
  BlobStore, JobQueue, KeyValueStore, Outbox, ResourceStore, Storage, StorageTransaction,
} from '../../ports/storage.js';

/** The transaction an async call chain runs in; `open` turns false once it committed or rolled back. */
interface OpenTransaction {
  readonly tx: StorageTransaction;
  open: boolean;
}

/**
 * A `Storage` view that routes resource, queue and outbox calls to the storage transaction the current
 * async call chain runs in (when there is one) and to the root store otherwise. It lets a
 * `ResourceService` run its read-check-write inside `transaction(...)` unchanged, so a check that
 * reads other records (e.g. "another admin exists") commits atomically with the write, and rules that
 * read storage while a transaction holds a connection never ask the pool for a second one (on a pool
 * of one connection, such as PGlite's, that would wait forever). Work that outlives its transaction
 * (a promise left running) falls back to the root store.
 */
export class TransactionScopedStorage implements Storage {
  private readonly current = new AsyncLocalStorage<OpenTransaction>();
  readonly resources: ResourceStore;
  readonly queue: JobQueue;
  readonly outbox: Outbox;

  /** `storage` itself when it already is a transaction-scoped view, else a new view over it. */
  static over(storage: Storage): TransactionScopedStorage {
    return storage instanceof TransactionScopedStorage ? storage : new TransactionScopedStorage(storage);
  }

  constructor(private readonly root: Storage) {
    const scope = (): Pick<Storage, 'resources' | 'queue' | 'outbox'> => {
      const running = this.current.getStore();
      return running?.open === true ? running.tx : root;
    };
    this.resources = {
      create: (ctx, name, data) => scope().resources.create(ctx, name, data),
      get: (ctx, name) => scope().resources.get(ctx, name),
      update: (ctx, name, data, etag) => scope().resources.update(ctx, name, data, etag),
      delete: (ctx, name, etag) => scope().resources.delete(ctx, name, etag),
      list: (ctx, query) => scope().resources.list(ctx, query),
    };
    this.queue = {
      enqueue: (ctx, request) => scope().queue.enqueue(ctx, request),
      claim: (ctx, queue, workerId, leaseMs) => scope().queue.claim(ctx, queue, workerId, leaseMs),
      renew: (ctx, jobId, attempt, leaseMs) => scope().queue.renew(ctx, jobId, attempt, leaseMs),
      complete: (ctx, jobId, attempt, result) => scope().queue.complete(ctx, jobId, attempt, result),
      fail: (ctx, jobId, attempt, error, retryAt) => scope().queue.fail(ctx, jobId, attempt, error, retryAt),
      get: (ctx, jobId) => scope().queue.get(ctx, jobId),
    };
    this.outbox = {
      publish: (ctx, topic, payload) => scope().outbox.publish(ctx, topic, payload),
      poll: (ctx, consumer, limit) => scope().outbox.poll(ctx, consumer, limit),
      ack: (ctx, consumer, sequence) => scope().outbox.ack(ctx, consumer, sequence),
      prune: (ctx, createdBefore) => scope().outbox.prune(ctx, createdBefore),
      removeConsumer: (ctx, consumer) => scope().outbox.removeConsumer(ctx, consumer),
    };
  }

  get blobs(): BlobStore {
    return this.root.blobs;
  }

  get kv(): KeyValueStore {
    return this.root.kv;
  }

  /** Runs `work` in a root transaction, or joins the one already running in this call chain. */
  transaction<T>(ctx: RequestContext, work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
    const running = this.current.getStore();
    if (running?.open === true) return work(running.tx);
    return this.root.transaction(ctx, async (tx) => {
      const opened: OpenTransaction = { tx, open: true };
      try {
        return await this.current.run(opened, () => work(tx));
      } finally {
        opened.open = false;
      }
    });
  }
}
