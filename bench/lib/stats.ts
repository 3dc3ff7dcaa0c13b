/** The median of some numbers (the upper middle one for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A ratio as a percentage with one decimal, e.g. `70.2%`. */
export function percent(ratio: number): string {
  return `${(100 * ratio).toFixed(1)}%`;
}
