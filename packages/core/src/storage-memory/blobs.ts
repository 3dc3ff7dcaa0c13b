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
