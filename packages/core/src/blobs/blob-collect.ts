import type { BlobObject, BlobReadStream } from '../ports/index.js';

/**
 * The whole object of a streamed read, in one buffer of its recorded size: how a store whose reads are
 * streams answers `BlobStore.get` (for small objects only; large ones are read with `getStream`).
 */
export async function collectBlob(read: BlobReadStream | undefined): Promise<BlobObject | undefined> {
  if (read === undefined) return undefined;
  const bytes = new Uint8Array(read.size);
  let at = 0;
  for await (const chunk of read.body) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes, contentType: read.contentType, size: read.size, createTime: read.createTime };
}
