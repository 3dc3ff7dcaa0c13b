import type { Resolver } from '../kernel/container.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { JsonValue } from '../ports/json.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { ClaimedJob, Storage, StorageTransaction } from '../ports/storage.js';
import type { BackoffOptions } from './backoff.js';

/**
 * The `reason` of the `GatewayError` a handler throws when it stopped its work because this instance
 * is closing (the work resumes elsewhere): the pool records the attempt as due at once, not after a backoff.
 */
export const handedOverReason = 'HANDED_OVER';

/** Default lease of a claimed job: renewed every third of it while the handler runs. */
export const DEFAULT_LEASE_MS = 30_000;

/** What a handler receives besides the job: a system request context plus the gateway's ports. */
export interface QueueJobContext extends RequestContext {
  /**
   * Aborted when this worker lost the job (a renewal was fenced: another worker now holds a newer
   * attempt) or when the pool's stop timeout ran out. A handler should stop its work when it fires.
   */
  readonly signal: AbortSignal;
  /** The pool's worker id, as recorded on the job's lease. */
  readonly workerId: string;
  readonly resolver: Resolver;
  readonly storage: Storage;
  readonly logger: GatewayLogger;
  /**
   * Two-phase exactly-once for an at-least-once handler with long work: after the slow part (outside
   * any transaction), commits `effect` and the job's completion in one transaction fenced by the
   * attempt (see {@link commitJobEffects}). The pool then does not complete the job again.
   * @throws ABORTED (reason STALE_ATTEMPT) when another worker took the job; `effect` was rolled back.
   */
  commit<T>(effect: (tx: StorageTransaction) => Promise<T>, result?: (value: T) => JsonValue | undefined): Promise<T>;
}

/** What `handle` may return: stored as the job's `result`. */
export type QueueHandlerResult = JsonValue | undefined | void;

interface QueueHandlerCommon {
  /** Queue name, e.g. `batch-inference`. One handler per queue in a pool. */
  readonly queue: string;
  /** Lease of each claim in ms (default 30 s); renewed every `leaseMs / 3` while `handle` runs. */
  readonly leaseMs?: number;
  /** Retry delays after a failed attempt (exponential with jitter). */
  readonly backoff?: BackoffOptions;
  /**
   * While it answers true, the pool claims nothing from this queue: this instance can no longer run the
   * queue's jobs (say, the server closed and detached what ran them), and a claim would only fail an
   * attempt that another instance can run. Asked before every claim.
   */
  readonly paused?: () => boolean;
}

/**
 * The default: `handle` runs, then the pool completes the job. If the worker dies between the effect
 * and the completion, the job runs again, so effects must be idempotent (or use `ctx.commit`).
 */
export interface AtLeastOnceQueueHandler extends QueueHandlerCommon {
  readonly effects?: 'at-least-once';
  handle(ctx: QueueJobContext, job: ClaimedJob): Promise<QueueHandlerResult>;
}

/**
 * `handle` runs inside `storage.transaction`; whatever it writes through `tx` commits together with
 * the job's completion, fenced by the attempt. A worker that lost its lease has its writes rolled
 * back, so the effect happens exactly once. Keep `handle` short: the transaction stays open while
 * it runs (a connection on PostgreSQL, the store's only lock in memory). For long work, use an
 * at-least-once handler that ends with `ctx.commit(tx => …)`.
 */
export interface ExactlyOnceQueueHandler extends QueueHandlerCommon {
  readonly effects: 'exactly-once';
  handle(ctx: QueueJobContext, job: ClaimedJob, tx: StorageTransaction): Promise<QueueHandlerResult>;
}

export type QueueHandler = AtLeastOnceQueueHandler | ExactlyOnceQueueHandler;

/** A handler's lease and retry delays, as configured by its owner. */
export type QueueHandlerTiming = Pick<QueueHandlerCommon, 'leaseMs' | 'backoff'>;

/** The lease and retry delays that were given (`undefined` ones left out, so the pool's defaults apply). */
export function queueHandlerTiming(options: QueueHandlerTiming): QueueHandlerTiming {
  return {
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.backoff !== undefined ? { backoff: options.backoff } : {}),
  };
}

const QUEUE_NAME = /^[a-z][a-z0-9._-]{0,99}$/;

/**
 * Declares the handler of one durable queue. Checks the declaration at once.
 * @throws Error when the queue name is not lowercase letters, digits, `.`, `_`, `-` (≤ 100), or
 *   `leaseMs` is below 30 ms.
 */
export function defineQueueHandler(handler: ExactlyOnceQueueHandler): ExactlyOnceQueueHandler;
export function defineQueueHandler(handler: AtLeastOnceQueueHandler): AtLeastOnceQueueHandler;
export function defineQueueHandler(handler: QueueHandler): QueueHandler {
  if (!QUEUE_NAME.test(handler.queue)) {
    throw new Error(`queue "${handler.queue}" must be lowercase letters, digits, '.', '_' and '-' (at most 100)`);
  }
  if (handler.leaseMs !== undefined && (!Number.isFinite(handler.leaseMs) || handler.leaseMs < 30)) {
    throw new Error(`queue "${handler.queue}": leaseMs must be at least 30`);
  }
  return handler;
}
