import { invalidArgument } from '../errors/index.js';

/** Longest key, in UTF-8 bytes. */
export const maxBlobKeyBytes = 1024;
/** Longest segment of a key, in UTF-8 bytes (a file name on every common filesystem, with room for a suffix). */
export const maxBlobSegmentBytes = 250;

const utf8 = new TextEncoder();
// Control characters (C0, DEL, C1) and the backslash, which some filesystems read as a separator.
// eslint-disable-next-line no-control-regex
const forbidden = /[\u0000-\u001f\u007f-\u009f\\]/;

function segmentProblem(segment: string): string | undefined {
  if (segment === '') return 'an empty segment (a leading, trailing or doubled "/")';
  if (segment === '.' || segment === '..') return `a "${segment}" segment`;
  if (utf8.encode(segment).byteLength > maxBlobSegmentBytes) return `a segment longer than ${maxBlobSegmentBytes} bytes`;
  return undefined;
}

function keyProblem(key: string): string | undefined {
  if (typeof key !== 'string' || key === '') return 'it is empty';
  if (utf8.encode(key).byteLength > maxBlobKeyBytes) return `it is longer than ${maxBlobKeyBytes} bytes`;
  if (forbidden.test(key)) return 'it holds a backslash or a control character';
  for (const segment of key.split('/')) {
    const problem = segmentProblem(segment);
    if (problem !== undefined) return `it has ${problem}`;
  }
  return undefined;
}

const shown = (key: string) => JSON.stringify(String(key).slice(0, 80));

/**
 * Refuses a key the blob-store port does not allow (see `BlobStore`): INVALID_ARGUMENT naming the
 * problem. Every store calls it first, so keys are checked the same way everywhere and none can name a
 * place outside the store.
 */
export function assertBlobKey(key: string): void {
  const problem = keyProblem(key);
  if (problem !== undefined) throw invalidArgument(`blob key ${shown(key)} is not allowed: ${problem}`, { reason: 'BAD_BLOB_KEY' });
}

function prefixProblem(prefix: string): string | undefined {
  if (typeof prefix !== 'string') return 'it is not a string';
  if (utf8.encode(prefix).byteLength > maxBlobKeyBytes) return `it is longer than ${maxBlobKeyBytes} bytes`;
  if (forbidden.test(prefix)) return 'it holds a backslash or a control character';
  const cut = prefix.lastIndexOf('/');
  if (cut >= 0) {
    const problem = keyProblem(prefix.slice(0, cut));
    if (problem !== undefined) return problem;
  }
  if (utf8.encode(prefix.slice(cut + 1)).byteLength > maxBlobSegmentBytes) return 'its last segment is too long';
  return undefined;
}

/**
 * Refuses a list prefix that could not begin a valid key: empty is allowed (everything); otherwise
 * every complete segment (before the last `/`) follows the key rules, and the rest is a segment's start.
 */
export function assertBlobPrefix(prefix: string): void {
  if (prefix === '') return;
  const problem = prefixProblem(prefix);
  if (problem !== undefined) throw invalidArgument(`blob prefix ${shown(prefix)} is not allowed: ${problem}`, { reason: 'BAD_BLOB_KEY' });
}
