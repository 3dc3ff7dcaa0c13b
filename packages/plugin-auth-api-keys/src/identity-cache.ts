import type { Principal } from '@berth/core';

/** A verified (or refused) credential: `principal` undefined means refused. */
export interface CachedIdentity {
  readonly principal: Principal | undefined;
  /** Clock time (ms) until which the answer may be reused: the TTL, capped by the key's expireTime. */
  readonly until: number;
  /** SHA-256 of the credential, to forget it when its key is revoked. */
  readonly hash: string;
}

export interface IdentityCacheOptions {
  /** How long a verified key is reused without reading storage (ms); 0 turns the cache off. */
  readonly ttlMs: number;
  /**
   * Longest time (ms) a change made on another instance may go unnoticed here: entries are reused only
   * while a complete pass over the change feed started at most this long ago.
   */
  readonly staleBoundMs: number;
  /** Entries kept before the cache starts over (default 10,000). */
  readonly maxEntries?: number;
}

/**
 * The verified-identity cache of one instance, keyed by the credential itself (a hit costs no hashing).
 *
 * Forgetting is immediate for changes made here (`forgetUser`, `forgetKey`, called after the change
 * commits and before it is acknowledged) and bounded for changes made elsewhere: the change feed calls
 * `synced` after each complete pass, and entries are trusted only while that pass is recent. A read that
 * began before a forget never stores its (possibly stale) answer: every forget starts a new generation.
 */
export class IdentityCache {
  private readonly entries = new Map<string, CachedIdentity>();
  private generation = 0;
  private syncedAtMs = Number.NEGATIVE_INFINITY;
  private readonly maxEntries: number;

  constructor(private readonly options: IdentityCacheOptions) {
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  /** The entry for `credential` while it is fresh and the change feed is recent enough to trust it. */
  fresh(credential: string, nowMs: number): CachedIdentity | undefined {
    if (nowMs - this.syncedAtMs > this.options.staleBoundMs) return undefined;
    const cached = this.entries.get(credential);
    return cached !== undefined && cached.until > nowMs ? cached : undefined;
  }

  /** Call before reading storage; pass the answer to {@link remember}. */
  readStarted(): number {
    return this.generation;
  }

  /** Stores an answer read since `readStarted`, unless something was forgotten meanwhile. */
  remember(credential: string, identity: CachedIdentity, generation: number): void {
    if (this.options.ttlMs <= 0 || generation !== this.generation) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(credential, identity);
  }

  /** Forgets every credential of the user (role or email changed, user deleted). */
  forgetUser(userName: string): void {
    this.forget((entry) => entry.principal?.userName === userName);
  }

  /** Forgets the credential with this hash (key revoked, or issued after a refusal was cached). */
  forgetKey(hash: string): void {
    this.forget((entry) => entry.hash === hash);
  }

  /** A pass over the change feed that started at `startedAtMs` has applied every change committed before. */
  synced(startedAtMs: number): void {
    if (startedAtMs > this.syncedAtMs) this.syncedAtMs = startedAtMs;
  }

  private forget(matches: (entry: CachedIdentity) => boolean): void {
    this.generation += 1;
    for (const [credential, entry] of this.entries) if (matches(entry)) this.entries.delete(credential);
  }
}
