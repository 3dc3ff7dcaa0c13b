import { AsyncLocalStorage } from 'node:async_hooks';
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
 * A transaction opened inside another one's work joins it: its undo log goes to the outer one on
 * success, so the outer rollback undoes it too.
 */
export class MemoryTransactions {
  private readonly mutex = new AsyncMutex();
  /** The undo log of the transaction the current async call chain runs in, if any. */
  private readonly current = new AsyncLocalStorage<UndoLog>();

  /**
   * The scope of the root stores: a write waits for the mutex, except inside a transaction's work,
   * where it runs at once and is not rolled back (like a write on another connection of a database).
   */
  readonly root: WriteScope = {
    write: async (change) => {
      if (this.current.getStore() !== undefined) return change(undefined);
      return this.mutex.run(() => change(undefined));
    },
  };

  /** Runs `work` in a transaction; `work` writes through stores built on the scope it receives. */
  async run<T>(work: (scope: WriteScope) => Promise<T>): Promise<T> {
    const outer = this.current.getStore();
    if (outer !== undefined) return this.runWithUndo(work, outer);
    return this.mutex.run(() => this.runWithUndo(work, undefined));
  }

  /** Runs `work` with its own undo log; a nested transaction hands its log to the outer one on success. */
  private async runWithUndo<T>(work: (scope: WriteScope) => Promise<T>, outer: UndoLog | undefined): Promise<T> {
    const undo: UndoLog = [];
    const scope: WriteScope = { write: async (change) => change(undo) };
    try {
      const result = await this.current.run(undo, () => work(scope));
      outer?.push(...undo);
      return result;
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i--) undo[i]?.();
      throw error;
    }
  }
}
