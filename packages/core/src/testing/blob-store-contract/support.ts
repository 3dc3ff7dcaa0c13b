import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BlobStore } from '../../ports/storage.js';

export { ctx, expectCode, uid } from '../storage-contract/support.js';

/** What each group of blob contract tests receives: the store under test (valid inside a test). */
export type BlobStoreGetter = () => BlobStore;

export interface BlobContractOptions {
  /**
   * The store keeps its objects in this process's memory (the memory store, or a database embedded in
   * the process such as PGlite): the bounded-memory checks, which measure this process, are skipped.
   */
  readonly holdsObjectsInProcess?: boolean;
  /**
   * Only for a test server standing in for a real backend (s3rver for S3): the longest key segment the
   * server can hold, when shorter than the port's 250 bytes (s3rver keeps keys as file names with a suffix).
   */
  readonly longestSegmentBytes?: number;
  /**
   * Only for a test server standing in for a real backend: false when the server itself does not replace
   * an object of one key atomically (s3rver copies into place in several steps), so the race of writers
   * to one key, which the real backend guarantees and the store relies on, is not run against it.
   */
  readonly atomicWritesOfOneKey?: boolean;
}

export const MiB = 1024 * 1024;

/** The byte at `index` of the generated object `seed`: a pattern that differs per seed and per position. */
const byteAt = (seed: number, index: number) => (index * 31 + seed * 7 + (index >> 13)) & 0xff;

/** Bytes `from`..`from + length` of the generated object `seed`. */
export function generated(seed: number, from: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += 1) out[i] = byteAt(seed, from + i);
  return out;
}

/**
 * The generated object `seed` of `size` bytes as a stream of fresh chunks of `chunkBytes` (never the
 * whole object at once); `onChunk` runs before each yield, `failAfter` throws after that many bytes.
 */
export async function* generatedChunks(
  seed: number, size: number, chunkBytes: number,
  hooks: { onChunk?: (sent: number) => void | Promise<void>; failAfter?: number } = {},
): AsyncIterable<Uint8Array> {
  for (let at = 0; at < size; at += chunkBytes) {
    if (hooks.failAfter !== undefined && at >= hooks.failAfter) throw new Error('the producer failed on purpose');
    await hooks.onChunk?.(at);
    yield generated(seed, at, Math.min(chunkBytes, size - at));
  }
}

/** SHA-256 (hex) of the generated object, computed piece by piece. */
export function generatedSha256(seed: number, size: number): string {
  const hash = createHash('sha256');
  for (let at = 0; at < size; at += 4 * MiB) hash.update(generated(seed, at, Math.min(4 * MiB, size - at)));
  return hash.digest('hex');
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Reads a stream whole (small objects only), checking every chunk is at most `maxChunk` bytes. */
export async function collect(body: AsyncIterable<Uint8Array>, maxChunk = 16 * MiB): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body) {
    if (chunk.byteLength > maxChunk) throw new Error(`a chunk of ${chunk.byteLength} bytes: more than ${maxChunk}`);
    parts.push(chunk);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

let collectGarbage: (() => void) | undefined;

/** This process's live memory (JS heap and array buffers) after a full garbage collection. */
export function liveMemory(): number {
  if (collectGarbage === undefined) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Asserts two byte arrays are equal (fast for megabytes; reports the first difference). */
export function expectBytes(actual: Uint8Array | undefined, expected: Uint8Array): void {
  if (actual === undefined) throw new Error(`expected ${expected.byteLength} bytes, got none`);
  if (Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength).equals(Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength))) return;
  let at = 0;
  while (at < Math.min(actual.byteLength, expected.byteLength) && actual[at] === expected[at]) at += 1;
  throw new Error(`bytes differ: ${actual.byteLength} bytes against ${expected.byteLength} expected, first difference at byte ${at}`);
}
