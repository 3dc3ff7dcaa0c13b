/** The median of some numbers (the upper middle one for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A ratio as a percentage with one decimal, e.g. `70.2%`. */
export function percent(ratio: number): string {
  return `${(100 * ratio).toFixed(1)}%`;
}

/**
 * One paired round: the baseline and the subject back to back, the baseline first in even rounds and the
 * subject first in odd ones, so neither side always runs on a machine the other just warmed or slowed.
 */
export async function pairedRound(round: number, baseline: () => Promise<unknown>, subject: () => Promise<unknown>): Promise<void> {
  const [first, second] = round % 2 === 0 ? [baseline, subject] : [subject, baseline];
  await first();
  await second();
}
