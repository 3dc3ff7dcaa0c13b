import { systemContext, type RequestContext } from '../contracts/request-context.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import { newManaged, servingIndexKey, type Managed } from './reconciler-model.js';

/**
 * The deployments a reconciler manages, and who hears of their changes. Their names are saved (key
 * {@link servingIndexKey}, in order, one write after another) so that a restarted reconciler finds
 * deployments again even when the change feed has nothing new for them; a failed save is logged, not thrown.
 */
export class ManagedDeployments {
  private readonly entries = new Map<string, Managed>();
  private readonly listeners = new Set<(deployment: string) => void>();
  private indexWrite: Promise<void> = Promise.resolve();

  /** `isStopped`: once it answers true, the index is no longer saved. */
  constructor(
    private readonly deps: { readonly storage: Pick<Storage, 'kv'>; readonly logger: GatewayLogger },
    private readonly isStopped: () => boolean,
  ) {}

  get(name: string): Managed | undefined {
    return this.entries.get(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  all(): IterableIterator<Managed> {
    return this.entries.values();
  }

  /** The deployment's entry, made on first use (and the index saved, unless `persist` is false). */
  entry(name: string, persist = true): Managed {
    let m = this.entries.get(name);
    if (!m) {
      m = newManaged(name);
      this.entries.set(name, m);
      if (persist) this.saveIndex();
    }
    return m;
  }

  /** Stops managing a deployment: saves the index and announces the change. */
  remove(name: string): void {
    this.entries.delete(name);
    this.saveIndex();
    this.changed(name);
  }

  /** Makes entries for the deployments of the saved index, without saving it again. */
  async loadIndex(ctx: RequestContext): Promise<void> {
    const saved = await this.deps.storage.kv.get(ctx, servingIndexKey);
    if (Array.isArray(saved)) for (const name of saved) if (typeof name === 'string') this.entry(name, false);
  }

  /** Queues a save of the managed names (sorted) after the saves already queued. */
  saveIndex(): void {
    if (this.isStopped()) return;
    const names = this.names().sort();
    this.indexWrite = this.indexWrite
      .then(() => this.deps.storage.kv.set(systemContext('serving-index'), servingIndexKey, names))
      .then(
        () => undefined,
        (error: unknown) => this.deps.logger.warn({ err: String(error) }, 'cannot save the serving index'),
      );
  }

  /** Resolves once the queued saves are done (they never reject). */
  saved(): Promise<void> {
    return this.indexWrite;
  }

  /** Calls `listener` when a deployment's replicas or state change; returns the function that removes it. */
  onChange(listener: (deployment: string) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Tells every listener; one that throws does not stop the others or the reconciler. */
  changed(name: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(name);
      } catch {
        // A listener's failure must not stop reconciling.
      }
    }
  }

  removeListeners(): void {
    this.listeners.clear();
  }
}
