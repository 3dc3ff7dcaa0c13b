import { Code, isGatewayError } from '../errors/index.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import { systemContext } from '../contracts/request-context.js';

export const leaderQueue = 'berth.serving.leader';

export interface LeadershipOptions {
  /** Lease length; the leader renews every third of it. Default 15 s. */
  readonly leaseMs?: number;
  /** Identifies this instance in the lease. */
  readonly instanceId: string;
}

export interface LeadershipCallbacks {
  /** This instance became the leader. */
  acquired(): Promise<void>;
  /** This instance lost the lease (another instance took it after it expired). */
  lost(): Promise<void>;
}

/**
 * Exactly one gateway instance per store runs the deployment reconciler. Leadership is a singleton job
 * in the durable queue, claimed with a lease and renewed by the leader; the queue fences every renewal by
 * attempt, so an instance that stalled past its lease learns it lost leadership instead of acting on
 * stale state. A leader that stops cleanly hands the job back at once; one that dies is replaced once
 * its lease expires (within about 1⅓ lease periods).
 */
export class ReconcilerLeadership {
  private readonly leaseMs: number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private held: { jobId: string; attempt: number } | undefined;
  private ticking: Promise<void> = Promise.resolve();
  private callbacks: LeadershipCallbacks | undefined;
  private finished = false;

  constructor(
    private readonly storage: Storage,
    private readonly logger: GatewayLogger,
    private readonly options: LeadershipOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 15_000;
  }

  get isLeader(): boolean {
    return this.held !== undefined;
  }

  /** Makes sure the leader job exists, tries once to lead, then keeps trying (or renewing) in the background. */
  async start(callbacks: LeadershipCallbacks): Promise<void> {
    this.callbacks = callbacks;
    const ctx = systemContext('leadership');
    await this.storage.queue.enqueue(ctx, { queue: leaderQueue, payload: { purpose: 'deployment reconciler leadership' }, dedupeKey: 'reconciler', maxAttempts: 2 ** 31 - 1 });
    await this.tick();
    this.timer = setInterval(() => void this.tick(), Math.max(10, Math.floor(this.leaseMs / 3)));
    this.timer.unref?.();
  }

  /** One step: claim when following, renew when leading. Steps never overlap. */
  tick(): Promise<void> {
    this.ticking = this.ticking.then(() => this.step()).catch((error: unknown) => {
      this.logger.warn({ err: String(error), instance: this.options.instanceId }, 'leadership step failed');
    });
    return this.ticking;
  }

  private async step(): Promise<void> {
    if (this.finished || !this.callbacks) return;
    const ctx = systemContext('leadership');
    if (this.held) {
      try {
        await this.storage.queue.renew(ctx, this.held.jobId, this.held.attempt, this.leaseMs);
      } catch (error) {
        if (!isGatewayError(error) || (error.code !== Code.ABORTED && error.code !== Code.NOT_FOUND)) throw error;
        this.held = undefined;
        this.finished = true;
        this.logger.error({ instance: this.options.instanceId }, 'lost the reconciler lease to another instance; this instance stops reconciling');
        await this.callbacks.lost();
      }
      return;
    }
    const claimed = await this.storage.queue.claim(ctx, leaderQueue, this.options.instanceId, this.leaseMs);
    if (!claimed) return;
    this.held = { jobId: claimed.id, attempt: claimed.attempt };
    this.logger.info({ instance: this.options.instanceId, attempt: claimed.attempt }, 'this instance runs the deployment reconciler');
    await this.callbacks.acquired();
  }

  /** Stops trying; a leader hands the lease back so another instance can take over at once. */
  async stop(): Promise<void> {
    this.finished = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    const held = this.held;
    this.held = undefined;
    if (!held) return;
    try {
      await this.storage.queue.fail(systemContext('leadership'), held.jobId, held.attempt, 'leader stopped', new Date(0));
    } catch (error) {
      this.logger.warn({ err: String(error) }, 'could not hand the reconciler lease back; it will expire');
    }
  }
}
