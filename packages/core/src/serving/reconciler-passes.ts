import type { GatewayLogger } from '../ports/logger.js';
import { StaleRead } from './reconciler-model.js';

/**
 * Runs the reconciler's passes, per deployment: never two passes of one deployment at once; a request that
 * comes while one runs is coalesced into one more pass after it, and so is {@link PassScheduler.repeat}.
 * Passes of different deployments run concurrently. A pass that read a deployment which then moved on
 * ({@link StaleRead}) runs again at once; other errors are logged and wait for the next request.
 */
export class PassScheduler {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();

  /** Once `isStopped` answers true, no pass is repeated. */
  constructor(
    private readonly pass: (name: string) => Promise<void>,
    private readonly logger: GatewayLogger,
    private readonly isStopped: () => boolean,
  ) {}

  /** Runs a pass soon (after the current microtask), or once more after the one running. */
  schedule(name: string): void {
    if (this.running.has(name)) {
      this.again.add(name);
      return;
    }
    const run = (async () => {
      await Promise.resolve();
      do {
        this.again.delete(name);
        try {
          await this.pass(name);
        } catch (error) {
          if (error instanceof StaleRead) this.again.add(name);
          else this.logger.warn({ err: String(error), deployment: name }, 'reconcile pass failed');
        }
      } while (this.again.has(name) && !this.isStopped());
      this.running.delete(name);
    })();
    this.running.set(name, run);
  }

  /** Asks for one more pass after the running one (called from inside a pass). */
  repeat(name: string): void {
    this.again.add(name);
  }

  /** Resolves when the deployment's passes (the running one and those coalesced into it) are done. */
  async idle(name: string): Promise<void> {
    await this.running.get(name);
  }

  /** Resolves when every running pass is done. */
  async allIdle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }
}
