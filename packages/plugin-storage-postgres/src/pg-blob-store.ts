import { randomUUID } from 'node:crypto';
import {
  aborted, assertBlobKey, collectBlob, assertBlobPrefix, assertBlobRange, BlobDigest, resolveBlobRange,
  type BlobMetadata, type BlobObject, type BlobRange, type BlobReadStream, type BlobStore, type RequestContext,
} from '@berth/core';
import { iso, run, text, type Tables } from './pg-support.js';
import type { SqlExecutor, SqlPool } from './sql-client.js';

/** Bytes in one row of `berth_blob_chunks`; objects up to this size stay inline in their row. */
export const blobChunkBytes = 1024 * 1024;

interface ObjectRow extends BlobMetadata {
  /** Bytes per chunk row; undefined for an inline object. */
  readonly chunkBytes: number | undefined;
  readonly version: string | null;
}

/**
 * Blobs on PostgreSQL, streamed: an object's bytes are written as rows of {@link blobChunkBytes} under a
 * fresh version id, then its row in `berth_blobs` is switched to that version in one short transaction
 * (under a per-key advisory lock, so concurrent writers queue for the switch and each removes the
 * chunks of the version it replaced). A reader fetches one chunk per query; if the object is replaced
 * while it reads and the chunk it needs is gone, the read fails ABORTED rather than mixing versions.
 * Neither side ever holds more than one chunk (and the driver's encoding of it).
 */
export class PgBlobStore implements BlobStore {
  constructor(
    private readonly t: Tables,
    private readonly pool: () => SqlPool,
  ) {}

  private db(): SqlExecutor {
    return this.pool();
  }

  async put(ctx: RequestContext, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    assertBlobKey(key);
    await this.write(ctx, key, slices(bytes), contentType);
  }

  async putStream(ctx: RequestContext, key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<number> {
    assertBlobKey(key);
    return this.write(ctx, key, chunks, contentType);
  }

  /**
   * Gathers the bytes into one reused buffer of {@link blobChunkBytes}; each full buffer becomes a chunk
   * row of a fresh version. An object that ends before the first chunk fills is stored inline. When the
   * producer or a write fails, the chunks written so far are removed and the old object is untouched.
   */
  private async write(_ctx: RequestContext, key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<number> {
    const version = randomUUID();
    const buffer = Buffer.allocUnsafe(blobChunkBytes);
    const digest = new BlobDigest();
    let filled = 0;
    let seq = 0;
    const flush = async () => {
      await run(this.db(), `INSERT INTO ${this.t.blobChunks} (version, seq, bytes) VALUES ($1, $2, $3)`, [version, seq, buffer.subarray(0, filled)]);
      seq += 1;
      filled = 0;
    };
    try {
      for await (const chunk of chunks) {
        digest.update(chunk);
        let offset = 0;
        while (offset < chunk.byteLength) {
          const taken = Math.min(chunk.byteLength - offset, blobChunkBytes - filled);
          buffer.set(chunk.subarray(offset, offset + taken), filled);
          filled += taken;
          offset += taken;
          if (filled === blobChunkBytes) await flush();
        }
      }
      const inline = seq === 0;
      if (!inline && filled > 0) await flush();
      await this.switchTo(key, {
        version, contentType, size: digest.size, sha256: digest.hex(),
        inline: inline ? Buffer.from(buffer.subarray(0, filled)) : undefined,
      });
      return digest.size;
    } catch (error) {
      if (seq > 0) await run(this.db(), `DELETE FROM ${this.t.blobChunks} WHERE version = $1`, [version]).catch(() => undefined);
      throw error;
    }
  }

  /** Points `key` at the new version in one transaction and removes the chunks of the version it replaced. */
  private async switchTo(
    key: string,
    next: { version: string; contentType: string; size: number; sha256: string; inline: Buffer | undefined },
  ): Promise<void> {
    const connection = await this.pool().connect();
    let broken: unknown;
    try {
      await run(connection, 'BEGIN');
      try {
        // Writers of one key switch one after another; each statement then sees the previous switch.
        await run(connection, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`berth:blob:${key}`]);
        const { rows } = await run(connection, `SELECT version, chunk_bytes FROM ${this.t.blobs} WHERE key = $1 FOR UPDATE`, [key]);
        await run(
          connection,
          `INSERT INTO ${this.t.blobs} (key, bytes, content_type, size, sha256, version, chunk_bytes) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (key) DO UPDATE SET bytes = excluded.bytes, content_type = excluded.content_type, size = excluded.size,
             sha256 = excluded.sha256, version = excluded.version, chunk_bytes = excluded.chunk_bytes, create_time = clock_timestamp()`,
          [key, next.inline ?? Buffer.alloc(0), next.contentType, next.size, next.sha256, next.version, next.inline === undefined ? blobChunkBytes : null],
        );
        const old = rows[0];
        if (old !== undefined && old.version !== null && old.chunk_bytes !== null) {
          await run(connection, `DELETE FROM ${this.t.blobChunks} WHERE version = $1`, [text(old.version)]);
        }
        await run(connection, 'COMMIT');
      } catch (error) {
        await connection.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      connection.release(broken !== undefined);
    }
  }

  private async row(key: string): Promise<ObjectRow | undefined> {
    const { rows } = await run(
      this.db(),
      `SELECT content_type, size::text AS size, create_time, version, chunk_bytes,
         coalesce(sha256, encode(sha256(bytes), 'hex')) AS sha256 FROM ${this.t.blobs} WHERE key = $1`,
      [key],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      contentType: text(row.content_type), size: Number(row.size), createTime: iso(row.create_time), sha256: text(row.sha256),
      version: row.version === null ? null : text(row.version), chunkBytes: row.chunk_bytes === null ? undefined : Number(row.chunk_bytes),
    };
  }

  async get(ctx: RequestContext, key: string): Promise<BlobObject | undefined> {
    return collectBlob(await this.getStream(ctx, key));
  }

  async head(_ctx: RequestContext, key: string): Promise<BlobMetadata | undefined> {
    assertBlobKey(key);
    const row = await this.row(key);
    return row === undefined ? undefined : { contentType: row.contentType, size: row.size, createTime: row.createTime, sha256: row.sha256 };
  }

  async getStream(_ctx: RequestContext, key: string, range?: BlobRange): Promise<BlobReadStream | undefined> {
    assertBlobKey(key);
    assertBlobRange(range);
    const row = await this.row(key);
    if (row === undefined) return undefined;
    const { offset, length } = resolveBlobRange(range, row.size);
    const metadata = { contentType: row.contentType, size: row.size, createTime: row.createTime, sha256: row.sha256 };
    const body = row.chunkBytes === undefined ? this.inlineSlices(key, row, offset, length) : this.chunkSlices(key, row.version ?? '', row.chunkBytes, offset, length);
    return { ...metadata, offset, length, body };
  }

  /** The range of an inline object, a slice of {@link blobChunkBytes} per query. */
  private async *inlineSlices(key: string, row: ObjectRow, offset: number, length: number): AsyncIterable<Uint8Array> {
    for (let at = offset; at < offset + length; at += blobChunkBytes) {
      const count = Math.min(blobChunkBytes, offset + length - at);
      // substring counts from 1; the version check refuses bytes of a newer object.
      const { rows } = await run(
        this.db(),
        `SELECT substring(bytes FROM $2 FOR $3) AS part FROM ${this.t.blobs} WHERE key = $1 AND version IS NOT DISTINCT FROM $4 AND chunk_bytes IS NULL`,
        [key, at + 1, count, row.version],
      );
      const part = rows[0]?.part as Uint8Array | undefined;
      if (part === undefined || part.byteLength !== count) throw aborted(`blob ${key} was replaced while it was read`);
      yield new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
    }
  }

  /** The range of a chunked object, one chunk row per query. */
  private async *chunkSlices(key: string, version: string, chunkBytes: number, offset: number, length: number): AsyncIterable<Uint8Array> {
    const end = offset + length;
    for (let seq = Math.floor(offset / chunkBytes); seq * chunkBytes < end; seq += 1) {
      const { rows } = await run(this.db(), `SELECT bytes FROM ${this.t.blobChunks} WHERE version = $1 AND seq = $2`, [version, seq]);
      const part = rows[0]?.bytes as Uint8Array | undefined;
      if (part === undefined) throw aborted(`blob ${key} was replaced while it was read`);
      const start = seq * chunkBytes;
      const from = Math.max(offset, start) - start;
      const to = Math.min(end, start + part.byteLength) - start;
      yield new Uint8Array(part.buffer, part.byteOffset + from, to - from);
    }
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    assertBlobKey(key);
    const { rows } = await run(this.db(), `DELETE FROM ${this.t.blobs} WHERE key = $1 RETURNING version, chunk_bytes`, [key]);
    const old = rows[0];
    if (old === undefined) return false;
    if (old.version !== null && old.chunk_bytes !== null) await run(this.db(), `DELETE FROM ${this.t.blobChunks} WHERE version = $1`, [text(old.version)]);
    return true;
  }

  async list(_ctx: RequestContext, prefix: string): Promise<string[]> {
    assertBlobPrefix(prefix);
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const { rows } = await run(this.db(), `SELECT key FROM ${this.t.blobs} WHERE key LIKE $1 ESCAPE '\\' ORDER BY key`, [pattern]);
    return rows.map((row) => text(row.key));
  }

  /** The port's sweep of unfinished writes: {@link sweepOrphanChunks}. */
  sweepAbandonedWrites(_ctx: RequestContext, olderThan: Date): Promise<number> {
    return this.sweepOrphanChunks(olderThan);
  }

  /**
   * Removes chunk rows older than `olderThan` that no object references: what a writer that died
   * mid-upload (or a write of the previous release over a chunked object) left. Answers how many.
   */
  async sweepOrphanChunks(olderThan: Date): Promise<number> {
    const { rows } = await run(
      this.db(),
      `DELETE FROM ${this.t.blobChunks} c WHERE c.create_time < $1
         AND NOT EXISTS (SELECT 1 FROM ${this.t.blobs} b WHERE b.version = c.version AND b.chunk_bytes IS NOT NULL)
       RETURNING 1 AS one`,
      [olderThan],
    );
    return rows.length;
  }
}

/** Yields `bytes` in views of at most {@link blobChunkBytes} (no copy: the writer copies into its buffer). */
async function* slices(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += blobChunkBytes) yield bytes.subarray(at, Math.min(at + blobChunkBytes, bytes.byteLength));
}
