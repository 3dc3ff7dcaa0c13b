/**
 * What a core queue handler runs its jobs with when that thing is built later than the handler: the
 * HTTP transport attaches its inference client once it serves (background responses, batch jobs) and
 * detaches it when it closes. The first attached is the one used; none attached means this instance
 * cannot run the jobs (the handler fails the attempt so another instance may).
 */
export class AttachedRunners<T> {
  private readonly attached: T[] = [];

  /** Adds `runner`; returns the detach. */
  attach(runner: T): () => void {
    this.attached.push(runner);
    return () => {
      const index = this.attached.indexOf(runner);
      if (index >= 0) this.attached.splice(index, 1);
    };
  }

  /** The runner in use: the first attached still attached. */
  get current(): T | undefined {
    return this.attached[0];
  }
}
