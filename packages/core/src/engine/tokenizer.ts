/**
 * The reference engine's tokenizer: deterministic and simple, not a real model's. A token is a run of letters
 * or digits (at most 8 characters; longer runs split, as subword tokenizers do) or one other non-space
 * character, together with the whitespace before it. Concatenating the pieces gives back the text (trailing
 * whitespace becomes its own piece), which is what lets the engine stream exactly what it counts.
 */
const piecePattern = /\s*(?:[\p{L}\p{N}]{1,8}|[^\s\p{L}\p{N}])|\s+$/gu;

/** Splits text into token pieces whose concatenation is the text. */
export function tokenize(text: string): string[] {
  return text.match(piecePattern) ?? [];
}

/** The number of tokens in a text. */
export function countTokens(text: string): number {
  return tokenize(text).length;
}
