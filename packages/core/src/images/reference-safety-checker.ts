import type { SafetyChecker, SafetyVerdict } from '../ports/image-engine.js';

/** Options of the reference safety checker. Terms match case-insensitively as whole words or phrases. */
export interface ReferenceSafetyCheckerOptions {
  /** Refused in every prompt, whatever the tolerance: `Request Moderated`, `CONTENT_FILTERED` on text_to_image. */
  readonly blockedTerms: readonly string[];
  /**
   * Allowed in prompts, but the output of such a prompt is refused (`Content Moderated`) when the request's
   * safety_tolerance is below {@link sensitiveTolerance}. Default none.
   */
  readonly sensitiveTerms?: readonly string[];
  /** Tolerances below this refuse outputs of sensitive prompts. Default 2 (the endpoint's default tolerance). */
  readonly sensitiveTolerance?: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A check of a prompt against terms: the terms found, as reasons. */
function termMatcher(terms: readonly string[], label: string): (prompt: string) => SafetyVerdict {
  const patterns = terms
    .map((term) => term.trim())
    .filter((term) => term !== '')
    .map((term) => ({ term, pattern: new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(term)}($|[^\\p{L}\\p{N}])`, 'iu') }));
  return (prompt) => {
    const found = patterns.filter(({ pattern }) => pattern.test(prompt)).map(({ term }) => `${label}: ${term}`);
    return found.length === 0 ? { allowed: true } : { allowed: false, reasons: found };
  };
}

/**
 * The reference safety checker, for development and tests: a prompt holding a blocked term is refused
 * before anything is generated; the output of a prompt holding a sensitive term is refused when the
 * request asked for a stricter tolerance than `sensitiveTolerance`. Real deployments bind a classifier to
 * `safetyCheckerToken` instead.
 */
export function referenceSafetyChecker(options: ReferenceSafetyCheckerOptions): SafetyChecker {
  const blocked = termMatcher(options.blockedTerms, 'blocked term');
  const sensitive = termMatcher(options.sensitiveTerms ?? [], 'sensitive term');
  const threshold = options.sensitiveTolerance ?? 2;
  return {
    reviewPrompt: async (_ctx, { prompt }) => blocked(prompt),
    reviewImage: async (_ctx, { prompt, safetyTolerance }) => (safetyTolerance < threshold ? sensitive(prompt) : { allowed: true }),
  };
}
