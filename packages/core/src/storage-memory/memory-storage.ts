import type { RequestContext } from '../kernel/index.js';
import type { BlobStore, JobQueue, KeyValueStore, Outbox, QueuedJobState, ResourceStore, Storage, StorageStats, StorageTransaction } from '../ports/index.js';
import { MemoryBlobStore } from './blobs.js';
import { MemoryKeyValueStore } from './kv.js';
import { MemoryOutbox } from './outbox.js';
import { MemoryJobQueue } from './queue.js';
import { MemoryResourceStore } from './resources.js';
import { MemoryState } from './state.js';
import { MemoryTransactions } from './transactions.js';

export interface MemoryStorageOptions {
  /** Clock in epoch milliseconds, for leases, expiries and timestamps. Default `Date.now`. */
  readonly now?: () => number;
  /** Where blobs go instead of this process's memory (e.g. a `FilesystemBlobStore`, an S3 store). */
  readonly blobs?: BlobStore;
}

/**
 * Every storage port in process memory: the embedded default, the fake core's own tests use, and the
 * reference the contract suite is written against. Nothing survives a restart.
 *
 * Transactions hold one mutex for their whole duration and keep an undo log that is replayed if the
 * work throws. Writes made outside a transaction wait for the mutex, so a rollback never overwrites them.
 * Reads do not wait, and may see a running transaction's writes (read-uncommitted): acceptable for the
 * single-process store this is. Like a database with a single connection, it keeps no ambient
 * (async-context) state: a root write, or a second transaction, made from inside a transaction's work
 * waits for that transaction to end. Work writes through the transaction it is handed.
 */
export class MemoryStorage implements Storage {
  readonly resources: ResourceStore;
  readonly blobs: BlobStore;
  readonly queue: JobQueue;
  readonly outbox: Outbox;
  readonly kv: KeyValueStore;

  private readonly state: MemoryState;
  private readonly transactions = new MemoryTransactions();

  constructor(options: MemoryStorageOptions = {}) {
    this.state = new MemoryState(options.now ?? Date.now);
    const root = this.transactions.root;
    this.resources = new MemoryResourceStore(this.state, root);
    this.blobs = options.blobs ?? new MemoryBlobStore(this.state);
    this.queue = new MemoryJobQueue(this.state, root);
    this.outbox = new MemoryOutbox(this.state, root);
    this.kv = new MemoryKeyValueStore(this.state);
  }

  transaction<T>(_ctx: RequestContext, work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
    return this.transactions.run((scope) =>
      work({
        resources: new MemoryResourceStore(this.state, scope),
        queue: new MemoryJobQueue(this.state, scope),
        outbox: new MemoryOutbox(this.state, scope),
        // Invariant locks hold by construction: transactions run one at a time (one mutex), so a check
        // and the write after it never interleave with another transaction's.
        lock: async () => undefined,
      }),
    );
  }

  stats(_ctx: RequestContext): Promise<StorageStats> {
    const counts = new Map<string, { queue: string; state: Exclude<QueuedJobState, 'completed'>; count: number }>();
    for (const job of this.state.jobs.values()) {
      if (job.state === 'completed') continue;
      const key = `${job.queue}\u0000${job.state}`;
      const entry = counts.get(key) ?? { queue: job.queue, state: job.state, count: 0 };
      entry.count += 1;
      counts.set(key, entry);
    }
    return Promise.resolve({ jobs: [...counts.values()] });
  }
}
