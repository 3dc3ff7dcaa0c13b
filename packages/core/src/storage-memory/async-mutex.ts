/** A first-come, first-served async lock: each holder runs alone, the others wait in order. */
export class AsyncMutex {
  private tail: Promise<void> = Promise.resolve();

  /** Waits for the lock and returns the function that releases it (call it exactly once). */
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    return release;
  }

  /** Runs `work` while holding the lock. */
  async run<T>(work: () => Promise<T> | T): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}
