/**
 * Wakes this process's idle queue workers at once, for code that just enqueued work it wants started now
 * rather than at the workers' next poll (default every second). Other processes still find the job at
 * their next poll. The `queueWorkers()` plugin subscribes its pool; without it a wake does nothing.
 */
export class QueueWakeups {
  private readonly listeners = new Set<() => void>();

  /** Calls `poke` on every {@link wake} until the returned function unsubscribes it. */
  subscribe(poke: () => void): () => void {
    this.listeners.add(poke);
    return () => {
      this.listeners.delete(poke);
    };
  }

  /** Wakes every subscribed pool. */
  wake(): void {
    for (const poke of this.listeners) poke();
  }
}
