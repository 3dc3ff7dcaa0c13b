/** Retry delays after a failed attempt. */
export interface BackoffOptions {
  /** Delay after the first failed attempt (default 1 s). */
  readonly initialMs?: number;
  /** Upper bound of any delay (default 5 min). */
  readonly maxMs?: number;
  /** Growth per attempt (default 2). */
  readonly multiplier?: number;
  /** Fraction of the delay drawn at random, 0–1 (default 0.2), so retries of many jobs spread out. */
  readonly jitter?: number;
}

/**
 * Delay before retrying after failed attempt number `attempt` (1-based): `initialMs · multiplier^(attempt-1)`,
 * capped at `maxMs`, of which a `jitter` fraction is random. `random` is injectable for tests.
 */
export function retryDelayMs(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const initial = options.initialMs ?? 1000;
  const max = options.maxMs ?? 300_000;
  const multiplier = options.multiplier ?? 2;
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0.2));
  const base = Math.min(max, initial * multiplier ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - jitter) + base * jitter * random());
}
