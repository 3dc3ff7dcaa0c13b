/** Tunables of the serving layer (reconciler, autoscaler, request queue, deletion guard). */
export interface ServingOptions {
  /** Interval of the reconciler's periodic pass over every deployment it manages. Default 1000 ms. */
  readonly pollIntervalMs?: number;
  /**
   * Replica failures in a row (no replica became ready in between) after which a deployment with no ready
   * replica becomes FAILED. Default 3.
   */
  readonly maxConsecutiveFailures?: number;
  /** Wait before replacing a failed replica; doubles with each failure in a row. Default 1000 ms. */
  readonly retryBackoffMs?: number;
  /** Upper bound of that wait. Default 30 s. */
  readonly maxRetryBackoffMs?: number;
  /** A replica being removed stops taking requests and is stopped once idle, or after this long. Default 30 s. */
  readonly drainTimeoutMs?: number;
  /** Requests that may wait for a replica of one deployment at once; more are UNAVAILABLE. Default 100. */
  readonly maxWaitersPerDeployment?: number;
  /** How long a request waits for a replica before it is UNAVAILABLE. Default 60 s. */
  readonly maxWaitMs?: number;
  /** A deployment that served a request this recently is refused deletion unless ignoreChecks. Default 5 min. */
  readonly recentTrafficWindowMs?: number;
  /** Concurrent requests per replica the autoscaler aims for when loadTargets names none. Default 8. */
  readonly defaultConcurrentRequestsTarget?: number;
  /**
   * Lease of the reconciler leadership: with several instances on one store, one runs the reconciler and
   * another takes over within about 1⅓ of this after it dies. Default 15 s.
   */
  readonly leaderLeaseMs?: number;
}

export type ResolvedServingOptions = Required<ServingOptions>;

export const defaultServingOptions: ResolvedServingOptions = {
  pollIntervalMs: 1000,
  maxConsecutiveFailures: 3,
  retryBackoffMs: 1000,
  maxRetryBackoffMs: 30_000,
  drainTimeoutMs: 30_000,
  maxWaitersPerDeployment: 100,
  maxWaitMs: 60_000,
  recentTrafficWindowMs: 5 * 60_000,
  defaultConcurrentRequestsTarget: 8,
  leaderLeaseMs: 15_000,
};

export function resolveServingOptions(options: ServingOptions): ResolvedServingOptions {
  return { ...defaultServingOptions, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
}
