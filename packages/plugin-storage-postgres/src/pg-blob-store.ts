import type { BlobObject, BlobStore, RequestContext } from '@berth/core';
import { iso, run, text, type ExecutorSource, type Tables } from './pg-support.js';

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
