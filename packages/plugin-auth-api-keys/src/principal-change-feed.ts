import { randomUUID } from 'node:crypto';
import { systemContext, type GatewayLogger, type JsonValue, type Outbox, type RequestContext } from '@berth/core';
import type { IdentityCache } from './identity-cache.js';

/** Outbox topic of changes that affect a principal: a user's role, email or existence, or a key's revocation. */
export const principalChangesTopic = 'berth.principals.changed';

export type PrincipalChange = { readonly userName: string } | { readonly keyHash: string };

/** Publishes `change` through `outbox` (a transaction's, so that it commits with the change). */
export function publishPrincipalChange(ctx: RequestContext, outbox: Outbox, change: PrincipalChange): Promise<void> {
  return outbox.publish(ctx, principalChangesTopic, change as JsonValue);
}

const batch = 500;

/**
 * Reads the principal changes every instance publishes and makes this instance's identity cache forget
 * them. Each instance reads with a consumer of its own (`identity-cache:<uuid>`), from the start of the
 * retained outbox, and removes it when it stops. Passes never overlap; after each complete pass the cache is told when it started,
 * and trusts its entries only while that is recent (see {@link IdentityCache.synced}).
 */
export class PrincipalChangeFeed {
  readonly consumer = `identity-cache:${randomUUID()}`;
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(
    private readonly outbox: Outbox,
    private readonly cache: IdentityCache,
    private readonly nowMs: () => number,
    private readonly logger: GatewayLogger,
  ) {}

  start(intervalMs: number): void {
    void this.poll();
    this.timer = setInterval(() => void this.poll(), intervalMs);
    this.timer.unref?.();
  }

  /** One complete pass (exposed for tests); waits for a pass already running first. */
  poll(): Promise<void> {
    this.running = this.running.then(() => this.pass()).then(
      () => {
        if (this.failing) this.logger.info({ consumer: this.consumer }, 'principal change feed readable again');
        this.failing = false;
      },
      (error: unknown) => {
        // The cache stops trusting its entries once the last complete pass is too old: no stale role is honoured.
        if (!this.failing) this.logger.warn({ err: String(error), consumer: this.consumer }, 'reading the principal change feed failed; identities are read from storage until it recovers');
        this.failing = true;
      },
    );
    return this.running;
  }

  private async pass(): Promise<void> {
    const startedAtMs = this.nowMs();
    const ctx = systemContext('identity-cache');
    for (;;) {
      const events = await this.outbox.poll(ctx, this.consumer, batch);
      for (const event of events) {
        if (event.topic !== principalChangesTopic) continue;
        const change = event.payload as Partial<Record<'userName' | 'keyHash', unknown>> | null;
        if (typeof change?.userName === 'string') this.cache.forgetUser(change.userName);
        if (typeof change?.keyHash === 'string') this.cache.forgetKey(change.keyHash);
      }
      const last = events[events.length - 1];
      if (last !== undefined) await this.outbox.ack(ctx, this.consumer, last.sequence);
      if (events.length < batch) break;
    }
    this.cache.synced(startedAtMs);
  }

  /**
   * Stops polling and removes this instance's consumer position from the outbox (its name is never
   * used again). An instance that dies without stopping leaves its row behind (see docs/decisions.md).
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    await this.outbox.removeConsumer(systemContext('identity-cache'), this.consumer).catch((error: unknown) => {
      this.logger.warn({ err: String(error), consumer: this.consumer }, 'removing the principal change feed consumer failed; its outbox position is left behind');
    });
  }
}
