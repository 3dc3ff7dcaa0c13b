/**
 * What a core queue handler runs its jobs with when that thing is built later than the handler: the
 * HTTP transport attaches its inference client once it serves (background responses, batch jobs) and
 * detaches it when it closes. The first attached is the one used; none attached means this instance
 * cannot run the jobs (the handler fails the attempt so another instance may). Once what was attached
 * has all detached, the instance is closing: the handler pauses its queue ({@link closed}) instead.
 */
export class AttachedRunners<T> {
  private readonly attached: T[] = [];
  private everAttached = false;

  /** Adds `runner`; returns the detach. */
  attach(runner: T): () => void {
    this.attached.push(runner);
    this.everAttached = true;
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
}
