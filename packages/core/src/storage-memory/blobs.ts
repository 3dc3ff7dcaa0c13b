import { assertBlobKey, assertBlobPrefix, assertBlobRange, BlobDigest, resolveBlobRange, sha256Hex, sliceCopies } from '../blobs/index.js';
import type { RequestContext } from '../kernel/index.js';
import type { BlobMetadata, BlobObject, BlobRange, BlobReadStream, BlobStore } from '../ports/index.js';
import { iso } from './records.js';
import type { MemoryState } from './state.js';

/** The blob store in memory: bytes are copied in and out, and an object is replaced in one step. */
export class MemoryBlobStore implements BlobStore {
  constructor(private readonly state: MemoryState) {}

  async put(_ctx: RequestContext, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    assertBlobKey(key);
    const copy = new Uint8Array(bytes);
    this.state.blobs.set(key, { bytes: copy, contentType, size: copy.byteLength, createTime: iso(this.state.now()), sha256: sha256Hex(copy) });
  }

  /** The chunks are copied as they arrive and joined once: memory is this store's medium. */
  async putStream(_ctx: RequestContext, key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<number> {
    assertBlobKey(key);
    const parts: Uint8Array[] = [];
    const digest = new BlobDigest();
    for await (const chunk of chunks) {
      parts.push(new Uint8Array(chunk));
      digest.update(chunk);
    }
    const bytes = joinChunks(parts);
    this.state.blobs.set(key, { bytes, contentType, size: bytes.byteLength, createTime: iso(this.state.now()), sha256: digest.hex() });
    return bytes.byteLength;
  }

  async get(_ctx: RequestContext, key: string): Promise<BlobObject | undefined> {
    assertBlobKey(key);
    const blob = this.state.blobs.get(key);
    return blob === undefined ? undefined : { bytes: new Uint8Array(blob.bytes), contentType: blob.contentType, size: blob.size, createTime: blob.createTime };
  }

  async head(_ctx: RequestContext, key: string): Promise<BlobMetadata | undefined> {
    assertBlobKey(key);
    const blob = this.state.blobs.get(key);
    return blob === undefined ? undefined : metadataOf(blob);
  }

  async getStream(_ctx: RequestContext, key: string, range?: BlobRange): Promise<BlobReadStream | undefined> {
    assertBlobKey(key);
    assertBlobRange(range);
    const blob = this.state.blobs.get(key);
    if (blob === undefined) return undefined;
    const { offset, length } = resolveBlobRange(range, blob.size);
    // The stored array is never changed in place (a write replaces it), so slicing it later is safe.
    return { ...metadataOf(blob), offset, length, body: sliceCopies(blob.bytes.subarray(offset, offset + length)) };
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    assertBlobKey(key);
    return this.state.blobs.delete(key);
  }

  async list(_ctx: RequestContext, prefix: string): Promise<string[]> {
    assertBlobPrefix(prefix);
    // Default sort compares UTF-16 code units, the order the port promises.
    return [...this.state.blobs.keys()].filter((key) => key.startsWith(prefix)).sort();
  }
}

function metadataOf(blob: BlobMetadata): BlobMetadata {
  return { contentType: blob.contentType, size: blob.size, createTime: blob.createTime, sha256: blob.sha256 };
}

function joinChunks(parts: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.byteLength;
  }
  return joined;
}
