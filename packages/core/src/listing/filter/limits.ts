/** Limits that keep a filter cheap to parse, check and run; beyond them the filter is INVALID_ARGUMENT. */
export const FILTER_LIMITS = {
  /** Characters (Unicode code points) in the filter text. */
  maxLength: 2048,
  /** Nesting of parentheses and function calls. */
  maxDepth: 32,
  /** Restrictions (comparisons, has tests and bare literals). */
  maxTerms: 256,
} as const;
