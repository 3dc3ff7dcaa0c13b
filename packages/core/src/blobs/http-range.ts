/**
 * HTTP range requests on stored objects (RFC 9110 §14): which bytes a `Range` header asks of an object of
 * a known size, and whether an `If-Range` validator still names the stored version.
 *
 * One range is served: `bytes=a-b`, `bytes=a-` and `bytes=-n`. A header Berth does not serve as a part —
 * another unit, several ranges (`bytes=0-1,5-6`), or a syntactically invalid one — is ignored and the whole
 * object answered (200), as the RFC allows. A range starting past the end, or a suffix of zero bytes, is
 * unsatisfiable (416).
 */
export type RangeChoice =
  | { readonly kind: 'whole' }
  | { readonly kind: 'part'; readonly offset: number; readonly length: number }
  | { readonly kind: 'unsatisfiable' };

const whole: RangeChoice = { kind: 'whole' };
const unsatisfiable: RangeChoice = { kind: 'unsatisfiable' };
const rangePattern = /^bytes[ \t]*=[ \t]*([0-9]*)-([0-9]*)[ \t]*$/i;

/** A decimal position; a number too long to be exact is taken as "past any object" (Infinity). */
function position(digits: string): number {
  return digits.length > 15 ? Number.POSITIVE_INFINITY : Number(digits);
}

/** The bytes a `Range` header asks of an object of `size` bytes (see the module comment). */
export function chooseRange(header: string | undefined, size: number): RangeChoice {
  if (header === undefined || header.trim() === '') return whole;
  const match = rangePattern.exec(header.trim());
  if (!match) return whole;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return whole;
  if (first === '') {
    const suffix = position(last);
    if (suffix === 0 || size === 0) return unsatisfiable;
    const offset = Math.max(0, size - suffix);
    return { kind: 'part', offset, length: size - offset };
  }
  const offset = position(first);
  const end = last === '' ? Number.POSITIVE_INFINITY : position(last);
  if (end < offset) return whole;
  if (offset >= size) return unsatisfiable;
  return { kind: 'part', offset, length: Math.min(end, size - 1) - offset + 1 };
}

/** The strong entity tag of a stored version: its SHA-256 quoted, or undefined when the store recorded none. */
export function blobEntityTag(sha256: string): string | undefined {
  return sha256 === '' ? undefined : `"${sha256}"`;
}

/**
 * Whether a range may be served under an `If-Range` header: yes without one; with an entity tag, only when
 * it is strong and equal to `entityTag`; with a date (Berth sends no `Last-Modified`), never.
 */
export function ifRangeHolds(ifRange: string | undefined, entityTag: string | undefined): boolean {
  if (ifRange === undefined || ifRange.trim() === '') return true;
  return entityTag !== undefined && ifRange.trim() === entityTag;
}

/** The `Content-Range` of a served part, `bytes a-b/size`. */
export function contentRange(offset: number, length: number, size: number): string {
  return `bytes ${offset}-${offset + length - 1}/${size}`;
}
