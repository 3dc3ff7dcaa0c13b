import { AsyncMutex } from './async-mutex.js';

/** Undo actions of a transaction, replayed newest first on rollback. */
export type UndoLog = (() => void)[];

/**
 * How a store runs a write. Root stores take the transaction mutex (so a write never interleaves with
 * an open transaction that might roll back over it); transaction stores already hold it and log undo
 * actions.
 */
export interface WriteScope {
  write<T>(change: (undo: UndoLog | undefined) => T): Promise<T>;
}

/**
 * One transaction at a time, under an async mutex, each with an undo log replayed if its work throws.
 *
 * Like a database with one connection, and with no ambient (async-context) state: a write through the
 * root stores waits until the open transaction ends, and so does a second `transaction(...)`. Work
 * inside a transaction therefore writes through the transaction it was handed; opening another one on
 * the same storage from inside that work waits for itself. Core code joins an open transaction
 * explicitly (`TransactionScopedStorage` routes calls made with the context a transaction hands its work).
 */
export class MemoryTransactions {
  private readonly mutex = new AsyncMutex();

  /** The scope of the root stores: every write waits for the mutex. */
  readonly root: WriteScope = {
    write: (change) => this.mutex.run(async () => change(undefined)),
  };

  /** Runs `work` in a transaction; `work` writes through stores built on the scope it receives. */
  run<T>(work: (scope: WriteScope) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const undo: UndoLog = [];
      const scope: WriteScope = { write: async (change) => change(undo) };
      try {
        return await work(scope);
      } catch (error) {
        for (let i = undo.length - 1; i >= 0; i--) undo[i]?.();
        throw error;
      }
    });
  }
}
