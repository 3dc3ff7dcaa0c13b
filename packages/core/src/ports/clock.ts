/** Time source; tests bind a controllable one. */
export interface Clock {
  now(): Date;
  /** The same instant in epoch milliseconds, without allocating a Date (hot paths use it when present). */
  nowMs?(): number;
}

export const systemClock: Clock = { now: () => new Date(), nowMs: Date.now };

/** Epoch milliseconds from any clock. */
export function clockMs(clock: Clock): number {
  return clock.nowMs ? clock.nowMs() : clock.now().getTime();
}
