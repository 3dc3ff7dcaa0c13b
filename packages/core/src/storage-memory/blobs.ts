import type { RequestContext } from '../kernel/index.js';
import type { BlobObject, BlobStore } from '../ports/index.js';
import { iso } from './records.js';
import type { MemoryState } from './state.js';

/** The blob store in memory: bytes are copied in and out. */
export class MemoryBlobStore implements BlobStore {
  constructor(private readonly state: MemoryState) {}

  async put(_ctx: RequestContext, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    this.state.blobs.set(key, { bytes: new Uint8Array(bytes), contentType, size: bytes.byteLength, createTime: iso(this.state.now()) });
  }

  /** The chunks are copied as they arrive and joined once: memory is this store's medium. */
  async putStream(_ctx: RequestContext, key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<number> {
    const parts: Uint8Array[] = [];
    for await (const chunk of chunks) parts.push(new Uint8Array(chunk));
    const bytes = joinChunks(parts);
    this.state.blobs.set(key, { bytes, contentType, size: bytes.byteLength, createTime: iso(this.state.now()) });
    return bytes.byteLength;
  }

  async get(_ctx: RequestContext, key: string): Promise<BlobObject | undefined> {
    const blob = this.state.blobs.get(key);
    return blob === undefined ? undefined : { ...blob, bytes: new Uint8Array(blob.bytes) };
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    return this.state.blobs.delete(key);
  }

  async list(_ctx: RequestContext, prefix: string): Promise<string[]> {
    // Default sort compares UTF-16 code units, the order the port promises.
    return [...this.state.blobs.keys()].filter((key) => key.startsWith(prefix)).sort();
  }
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
