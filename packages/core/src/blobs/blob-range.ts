import { GatewayError, Code, invalidArgument } from '../errors/index.js';
import type { BlobRange } from '../ports/index.js';

/** The bytes a read serves: `length` bytes from `offset`. */
export interface ResolvedRange {
  readonly offset: number;
  readonly length: number;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * Checks a requested range against an object of `size` bytes and cuts it at the end (see `BlobRange`):
 * INVALID_ARGUMENT for a negative or fractional number, OUT_OF_RANGE for an offset past the end.
 */
export function resolveBlobRange(range: BlobRange | undefined, size: number): ResolvedRange {
  if (range === undefined) return { offset: 0, length: size };
  if (!isCount(range.offset)) throw invalidArgument('a blob range offset must be a non-negative integer', { reason: 'BAD_BLOB_RANGE' });
  if (range.length !== undefined && !isCount(range.length)) {
    throw invalidArgument('a blob range length must be a non-negative integer', { reason: 'BAD_BLOB_RANGE' });
  }
  if (range.offset > size) {
    throw new GatewayError(Code.OUT_OF_RANGE, `the range starts at byte ${range.offset}, past the end of the ${size}-byte object`, { reason: 'BLOB_RANGE_NOT_SATISFIABLE' });
  }
  const rest = size - range.offset;
  return { offset: range.offset, length: range.length === undefined ? rest : Math.min(range.length, rest) };
}

/** Checks the shape of a range before the object's size is known (what stores call first). */
export function assertBlobRange(range: BlobRange | undefined): void {
  if (range !== undefined) resolveBlobRange(range, Number.MAX_SAFE_INTEGER);
}
