import { Code, GatewayError } from '../errors/index.js';

/** How a cache loads and unloads add-ons on its replica. */
export interface AddonCacheOps {
  load(name: string): Promise<void>;
  unload(name: string): Promise<void>;
}

interface Slot {
  readonly name: string;
  state: 'loading' | 'loaded' | 'unloading';
  /** Requests using the add-on now (a loading slot is pinned by its loader). */
  pins: number;
  lastUsed: number;
  /** Settles when the slot's load or unload is over. */
  done: Promise<void>;
  /** Undeployed: unload once the last request using it ends. */
  removeWhenIdle: boolean;
}

/**
 * The LoRA add-ons loaded on one replica: at most `capacity` at once (counting those loading and
 * unloading), least recently used evicted first. A request pins the add-on it uses for its whole
 * exchange, so an add-on is never unloaded under a request; a request whose add-on has no free slot
 * (every slot pinned) waits for one instead of failing. Loads of one add-on are shared by the requests
 * that need it at once.
 */
export class ReplicaAddonCache {
  private readonly slots = new Map<string, Slot>();
  private readonly waiters = new Set<() => void>();
  private clock = 0;
  /** Loads and unloads this cache asked of its replica. */
  loads = 0;
  unloads = 0;

  constructor(
    readonly capacity: number,
    private readonly ops: AddonCacheOps,
  ) {}

  /** Add-ons loaded or loading, least recently used first. */
  names(): string[] {
    return [...this.slots.values()]
      .filter((s) => s.state !== 'unloading')
      .sort((a, b) => a.lastUsed - b.lastUsed)
      .map((s) => s.name);
  }

  /** Records add-ons the replica already has loaded (found after a restart), oldest first, up to capacity. */
  adopt(names: readonly string[]): void {
    for (const name of names) {
      if (this.slots.size >= this.capacity || this.slots.has(name)) continue;
      this.slots.set(name, { name, state: 'loaded', pins: 0, lastUsed: ++this.clock, done: Promise.resolve(), removeWhenIdle: false });
    }
  }

  /**
   * Pins `name` loaded on the replica and answers the function that unpins it (call it once, when the
   * request ends). Loads the add-on when needed, evicting the least recently used idle one when full, and
   * waits while no slot can be freed.
   * @throws the load's error (shared by every request waiting for that load); CANCELLED when `signal` aborts.
   */
  async acquire(name: string, signal?: AbortSignal): Promise<() => void> {
    for (;;) {
      if (signal?.aborted) throw new GatewayError(Code.CANCELLED, `the request was cancelled while add-on ${name} was loading`);
      const slot = this.slots.get(name);
      if (slot?.state === 'loaded') {
        slot.removeWhenIdle = false;
        slot.pins += 1;
        slot.lastUsed = ++this.clock;
        return this.unpinOnce(slot);
      }
      if (slot?.state === 'loading') {
        await slot.done;
        continue;
      }
      if (slot?.state === 'unloading') {
        await slot.done.catch(() => undefined);
        continue;
      }
      if (this.slots.size < this.capacity) return this.startLoad(name);
      const victim = this.leastRecentlyUsedIdle();
      if (victim) await this.unloadSlot(victim);
      else await this.nextChange(signal);
    }
  }

  /** Unloads an add-on (undeployed): at once when idle, else once its last request ends. */
  async remove(name: string): Promise<void> {
    const slot = this.slots.get(name);
    if (!slot) return;
    if (slot.state === 'loading') await slot.done.catch(() => undefined);
    if (slot.state !== 'loaded') return;
    if (slot.pins > 0) slot.removeWhenIdle = true;
    else await this.unloadSlot(slot);
  }

  private startLoad(name: string): Promise<() => void> {
    const slot: Slot = { name, state: 'loading', pins: 1, lastUsed: ++this.clock, done: Promise.resolve(), removeWhenIdle: false };
    this.slots.set(name, slot);
    this.loads += 1;
    slot.done = this.ops.load(name).then(
      () => {
        slot.state = 'loaded';
        this.wake();
      },
      (error: unknown) => {
        this.slots.delete(name);
        this.wake();
        throw error;
      },
    );
    return slot.done.then(() => this.unpinOnce(slot));
  }

  private async unloadSlot(slot: Slot): Promise<void> {
    slot.state = 'unloading';
    this.unloads += 1;
    slot.done = this.ops.unload(slot.name).finally(() => {
      this.slots.delete(slot.name);
      this.wake();
    });
    // An unload that failed leaves the engine to its own limit; the slot is free either way.
    await slot.done.catch(() => undefined);
  }

  private leastRecentlyUsedIdle(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.slots.values()) {
      if (slot.state !== 'loaded' || slot.pins > 0) continue;
      if (!best || slot.lastUsed < best.lastUsed) best = slot;
    }
    return best;
  }

  private unpinOnce(slot: Slot): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      slot.pins -= 1;
      if (slot.pins === 0 && slot.removeWhenIdle && slot.state === 'loaded') void this.unloadSlot(slot);
      this.wake();
    };
  }

  private nextChange(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
