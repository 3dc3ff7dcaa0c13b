/**
 * What a core queue handler runs its jobs with when that thing is built later than the handler: the
 * HTTP transport attaches its inference client once it serves (background responses, batch jobs) and
 * detaches it when it closes. The first attached is the one used; none attached means this instance
 * cannot run the jobs (the handler fails the attempt so another instance may). Once what was attached
 * has all detached, the instance is closing: the handler pauses its queue ({@link closed}) instead.
 *
 * The queue workers start with the gateway, before the host serves HTTP, so a job claimed right after a
 * start (one handed back by the previous process, say) may find nothing attached yet: handlers wait a
 * little for it ({@link whenAttached}, {@link runnerAttachWaitMs}) before they give up.
 */
export class AttachedRunners<T> {
  private readonly attached: T[] = [];
  private everAttached = false;
  private waiters: ((runner: T) => void)[] = [];

  /** Adds `runner`; returns the detach. */
  attach(runner: T): () => void {
    this.attached.push(runner);
    this.everAttached = true;
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake(runner);
    return () => {
      const index = this.attached.indexOf(runner);
      if (index >= 0) this.attached.splice(index, 1);
    };
  }

  /** The runner in use: the first attached still attached. */
  get current(): T | undefined {
    return this.attached[0];
  }

  /**
   * True when runners were attached and all have detached: the server that ran the jobs closed, so this
   * instance's workers should claim none of them (another instance runs them). Never attached is not
   * closed: that instance fails each attempt it claims, as it always could not run them.
   */
  get closed(): boolean {
    return this.everAttached && this.attached.length === 0;
  }

  /**
   * The runner in use, or the first attached within `timeoutMs` (default {@link runnerAttachWaitMs});
   * `undefined` when none came in time, when `signal` aborted, or at once when the instance is
   * {@link closed} (its runner will not come back).
   */
  whenAttached(signal?: AbortSignal, timeoutMs = runnerAttachWaitMs): Promise<T | undefined> {
    const now = this.current;
    if (now !== undefined || this.closed || signal?.aborted === true) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (runner: T | undefined) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        this.waiters = this.waiters.filter((waiter) => waiter !== wake);
        resolve(runner);
      };
      const wake = (runner: T) => done(runner);
      const giveUp = () => done(undefined);
      const timer = setTimeout(giveUp, timeoutMs);
      signal?.addEventListener('abort', giveUp, { once: true });
      this.waiters.push(wake);
    });
  }
}

/**
 * How long a job claimed while nothing is attached waits for a runner before its attempt fails (NO_RUNNER):
 * long enough for a host to serve HTTP after `gateway.start()`, short for an instance that never will.
 */
export const runnerAttachWaitMs = 3000;
