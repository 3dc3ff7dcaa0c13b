import type { BlobObject, BlobStore, RequestContext } from '@berth/core';
import { iso, run, text, type ExecutorSource, type Tables } from './pg-support.js';

/** Bytes gathered before one write of {@link PgBlobStore.putStream}. */
const streamSliceBytes = 4 * 1024 * 1024;

export class PgBlobStore implements BlobStore {
  constructor(
    private readonly t: Tables,
    private readonly db: ExecutorSource,
  ) {}

  async put(_ctx: RequestContext, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await run(
      this.db(),
      `INSERT INTO ${this.t.blobs} (key, bytes, content_type, size) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key) DO UPDATE SET bytes = excluded.bytes, content_type = excluded.content_type, size = excluded.size, create_time = clock_timestamp()`,
      [key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), contentType, bytes.byteLength],
    );
  }

  /**
   * Writes the object in slices of {@link streamSliceBytes}, gathered in one buffer reused for every
   * slice: the first write replaces any older object, each next one is appended server-side
   * (`bytes || $2`), so the gateway holds one slice at a time.
   */
  async putStream(ctx: RequestContext, key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<number> {
    const slice = Buffer.allocUnsafe(streamSliceBytes);
    let filled = 0;
    let size = 0;
    let first = true;
    const flush = async () => {
      const bytes = slice.subarray(0, filled);
      if (first) await this.put(ctx, key, bytes, contentType);
      else await run(this.db(), `UPDATE ${this.t.blobs} SET bytes = bytes || $2, size = size + $3 WHERE key = $1`, [key, bytes, filled]);
      first = false;
      size += filled;
      filled = 0;
    };
    for await (const chunk of chunks) {
      let offset = 0;
      while (offset < chunk.byteLength) {
        const taken = Math.min(chunk.byteLength - offset, streamSliceBytes - filled);
        slice.set(chunk.subarray(offset, offset + taken), filled);
        filled += taken;
        offset += taken;
        if (filled === streamSliceBytes) await flush();
      }
    }
    if (first || filled > 0) await flush();
    return size;
  }

  async get(_ctx: RequestContext, key: string): Promise<BlobObject | undefined> {
    const { rows } = await run(this.db(), `SELECT bytes, content_type, size, create_time FROM ${this.t.blobs} WHERE key = $1`, [key]);
    const row = rows[0];
    if (row === undefined) return undefined;
    const bytes = row.bytes as Uint8Array;
    return { bytes: new Uint8Array(bytes), contentType: text(row.content_type), size: Number(row.size), createTime: iso(row.create_time) };
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    const { rows } = await run(this.db(), `DELETE FROM ${this.t.blobs} WHERE key = $1 RETURNING 1 AS one`, [key]);
    return rows.length > 0;
  }

  async list(_ctx: RequestContext, prefix: string): Promise<string[]> {
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const { rows } = await run(this.db(), `SELECT key FROM ${this.t.blobs} WHERE key LIKE $1 ESCAPE '\\' ORDER BY key`, [pattern]);
    return rows.map((row) => text(row.key));
  }
}
