import { createHash, type Hash } from 'node:crypto';

/** SHA-256 of the bytes passing through, and their count: what a store records while it writes. */
export class BlobDigest {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;

  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
    this.bytes += chunk.byteLength;
  }

  get size(): number {
    return this.bytes;
  }

  /** Lowercase hex; call once, after the last chunk. */
  hex(): string {
    return this.hash.digest('hex');
  }
}

/** Lowercase hex SHA-256 of bytes held in memory. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Yields `bytes` in slices of at most `sliceBytes`, each a copy (the caller may keep or change it). */
export async function* sliceCopies(bytes: Uint8Array, sliceBytes = 1024 * 1024): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += sliceBytes) yield bytes.slice(at, Math.min(at + sliceBytes, bytes.byteLength));
}
