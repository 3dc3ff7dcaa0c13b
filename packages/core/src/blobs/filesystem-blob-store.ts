import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { aborted, invalidArgument } from '../errors/index.js';
import type { RequestContext } from '../kernel/index.js';
import type { BlobMetadata, BlobObject, BlobRange, BlobReadStream, BlobStore } from '../ports/index.js';
import { assertBlobKey, assertBlobPrefix } from './blob-keys.js';
import { assertBlobRange, resolveBlobRange } from './blob-range.js';
import { BlobDigest } from './blob-digest.js';
import { collectBlob } from './blob-collect.js';

/** Bytes reserved at the start of every object file for its metadata. */
const headerBytes = 4096;
const magic = 'BERTHBLOB1\n';
/** Bytes read per chunk of a stream. */
const readSliceBytes = 1024 * 1024;
/** Bytes written per `write` call: what a stream's chunks are gathered into. */
const writeSliceBytes = 1024 * 1024;
/** Default of {@link FilesystemBlobStoreOptions.flushEveryBytes}. */
const defaultFlushEveryBytes = 64 * 1024 * 1024;

export interface FilesystemBlobStoreOptions {
  /** Directory the store owns (created when missing): objects under `objects/`, writes in progress under `tmp/`. */
  readonly directory: string;
  /** Flush every object to the disk before it becomes visible (fdatasync). Default true. */
  readonly durable?: boolean;
  /**
   * For a durable store: while a write streams, flush what it has written so far each time this many more
   * bytes were written (an fdatasync on the thread pool, beside the writes that follow), so the flush
   * before the object becomes visible only waits for the last part. Default 64 MiB.
   */
  readonly flushEveryBytes?: number;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Blobs as files under one directory: the embedded default. Each object is one file holding a 4 KiB
 * metadata header (content type, size, SHA-256, create time) and then the bytes. A write streams into a
 * fresh file under `tmp/` and is renamed over the object's file when complete, so readers see the old
 * object or the new one and concurrent writers leave exactly one. Key segments become directories named
 * `<segment>.d` and the object file `<segment>.o`, so `a/b` and `a/b/c` never collide. Keys are checked
 * by `assertBlobKey` and every path is checked again to lie inside the directory.
 */
export class FilesystemBlobStore implements BlobStore {
  readonly directory: string;
  private readonly objects: string;
  private readonly tmp: string;
  private readonly durable: boolean;
  private readonly flushEveryBytes: number;

  constructor(options: FilesystemBlobStoreOptions) {
    this.directory = resolve(options.directory);
    this.objects = join(this.directory, 'objects');
    this.tmp = join(this.directory, 'tmp');
    this.durable = options.durable ?? true;
    this.flushEveryBytes = options.flushEveryBytes ?? defaultFlushEveryBytes;
    if (!(this.flushEveryBytes >= writeSliceBytes)) throw new Error(`flushEveryBytes must be at least ${writeSliceBytes}`);
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    const segments = key.split('/');
    const last = segments.pop()!;
    const path = join(this.objects, ...segments.map((s) => `${s}.d`), `${last}.o`);
    if (!path.startsWith(this.objects + sep)) throw invalidArgument(`blob key ${JSON.stringify(key.slice(0, 80))} is not allowed`, { reason: 'BAD_BLOB_KEY' });
    return path;
  }

  async put(ctx: RequestContext, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.putStream(ctx, key, (async function* () {
      yield bytes;
    })(), contentType);
  }

  /**
   * Streams `chunks` into a fresh temporary file and renames it over the object when complete. The bytes
   * are copied into 1 MiB slices, `writeSliceBytes` (a request body arrives in socket-sized pieces; one
   * `write` per piece costs a thread-pool round trip each) and written behind the stream: one slice is on
   * its way to the disk while the next one fills, so reading, hashing and writing overlap. At most two
   * slices are held; a chunk is never kept after the next one is asked for (the producer may reuse it).
   * A durable store also flushes behind the stream (`flushEveryBytes`): at most one fdatasync at a time
   * runs beside the writes, and the one before the rename only has the bytes written since to wait for.
   */
  async putStream(_ctx: RequestContext, key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<number> {
    const target = this.pathOf(key);
    await mkdir(this.tmp, { recursive: true });
    const temporary = join(this.tmp, `${randomUUID()}.tmp`);
    const file = await open(temporary, 'w');
    let closed = false;
    let writing: Promise<void> | undefined;
    // The flush in flight, until it succeeds; a failed one stays here (no other starts) and fails the
    // write at the next slice sent, or at the end.
    let flushing: Promise<void> | undefined;
    let flushFailure: Error | undefined;
    let unflushed = 0;
    const flushBehind = (): void => {
      const flush = file.datasync();
      flushing = flush;
      flush.then(() => {
        if (flushing === flush) flushing = undefined;
      }, (error: unknown) => {
        flushFailure = error instanceof Error ? error : new Error(String(error));
      });
      unflushed = 0;
    };
    try {
      const digest = new BlobDigest();
      let position = headerBytes;
      let filling = Buffer.allocUnsafe(writeSliceBytes);
      let spare = Buffer.allocUnsafe(writeSliceBytes);
      let filled = 0;
      // Waits for the slice on its way (its buffer becomes the spare), then sends the filled one.
      const send = async (): Promise<void> => {
        if (flushFailure) throw flushFailure;
        if (writing) await writing;
        writing = writeFully(file, filling.subarray(0, filled), position);
        // Awaited before the next send or at the end; a failure surfaces there, never as unhandled.
        writing.catch(() => undefined);
        position += filled;
        unflushed += filled;
        [filling, spare] = [spare, filling];
        filled = 0;
        if (this.durable && unflushed >= this.flushEveryBytes && flushing === undefined) flushBehind();
      };
      for await (const chunk of chunks) {
        digest.update(chunk);
        for (let at = 0; at < chunk.byteLength; ) {
          const n = Math.min(writeSliceBytes - filled, chunk.byteLength - at);
          filling.set(chunk.subarray(at, at + n), filled);
          filled += n;
          at += n;
          if (filled === writeSliceBytes) await send();
        }
      }
      if (filled > 0) await send();
      if (writing) await writing;
      if (flushing) await flushing;
      const header = encodeHeader({ contentType, size: digest.size, createTime: new Date().toISOString(), sha256: digest.hex() });
      await file.write(header, 0, headerBytes, 0);
      if (this.durable) await file.datasync();
      closed = true;
      await file.close();
      await this.moveInto(temporary, target);
      return digest.size;
    } catch (error) {
      // A slice may still be on its way: let it settle before the file is closed and removed.
      await writing?.catch(() => undefined);
      await flushing?.catch(() => undefined);
      if (!closed) await file.close().catch(() => undefined);
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  /** Renames the finished file over the object; retries when a concurrent delete removed the directory meanwhile. */
  private async moveInto(temporary: string, target: string): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      await mkdir(dirname(target), { recursive: true });
      try {
        await rename(temporary, target);
        return;
      } catch (error) {
        if (!isMissing(error) || attempt >= 5) throw error;
      }
    }
  }

  /** The object's header, read from an open file. */
  private async readHeader(file: FileHandle, key: string): Promise<{ metadata: BlobMetadata; raw: Buffer }> {
    const raw = Buffer.alloc(headerBytes);
    const { bytesRead } = await file.read(raw, 0, headerBytes, 0);
    if (bytesRead !== headerBytes) throw aborted(`blob ${key} is incomplete on disk`);
    return { metadata: decodeHeader(raw, key), raw };
  }

  async head(_ctx: RequestContext, key: string): Promise<BlobMetadata | undefined> {
    const file = await this.openObject(this.pathOf(key));
    if (file === undefined) return undefined;
    try {
      return (await this.readHeader(file, key)).metadata;
    } finally {
      await file.close();
    }
  }

  private async openObject(path: string): Promise<FileHandle | undefined> {
    try {
      return await open(path, 'r');
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
      throw error;
    }
  }

  /**
   * Reads the header now and the bytes when the body is iterated, from a file opened then (no file is
   * held open between the two). If the object was replaced in between, the body fails ABORTED.
   */
  async getStream(_ctx: RequestContext, key: string, range?: BlobRange): Promise<BlobReadStream | undefined> {
    const path = this.pathOf(key);
    assertBlobRange(range);
    const file = await this.openObject(path);
    if (file === undefined) return undefined;
    let header: { metadata: BlobMetadata; raw: Buffer };
    try {
      header = await this.readHeader(file, key);
    } finally {
      await file.close();
    }
    const { offset, length } = resolveBlobRange(range, header.metadata.size);
    const reopen = () => this.openObject(path);
    const readHeader = (f: FileHandle) => this.readHeader(f, key);
    async function* body(): AsyncIterable<Uint8Array> {
      if (length === 0) return;
      const reading = await reopen();
      if (reading === undefined) throw aborted(`blob ${key} was deleted while it was read`);
      // One slice is read ahead while the one before it is consumed (sent to a socket, hashed).
      let ahead: Promise<Buffer> | undefined;
      const readAhead = (at: number): void => {
        const slice = Buffer.allocUnsafe(Math.min(readSliceBytes, offset + length - at));
        ahead = reading.read(slice, 0, slice.byteLength, headerBytes + at).then(({ bytesRead }) => (bytesRead === slice.byteLength ? slice : slice.subarray(0, bytesRead)));
        // Awaited below or in `finally`; never an unhandled rejection.
        ahead.catch(() => undefined);
      };
      try {
        if (!(await readHeader(reading)).raw.equals(header.raw)) throw aborted(`blob ${key} was replaced while it was read`);
        readAhead(offset);
        for (let at = offset; at < offset + length; ) {
          const slice = await ahead!;
          ahead = undefined;
          if (slice.byteLength === 0) throw aborted(`blob ${key} is shorter on disk than its header says`);
          at += slice.byteLength;
          if (at < offset + length) readAhead(at);
          yield slice;
        }
      } finally {
        await ahead?.catch(() => undefined);
        await reading.close();
      }
    }
    return { ...header.metadata, offset, length, body: body() };
  }

  async get(ctx: RequestContext, key: string): Promise<BlobObject | undefined> {
    return collectBlob(await this.getStream(ctx, key));
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    const path = this.pathOf(key);
    try {
      await unlink(path);
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
      throw error;
    }
    // Remove the directories the key leaves empty (a concurrent writer recreates what it needs).
    for (let dir = dirname(path); dir.startsWith(this.objects + sep); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
    }
    return true;
  }

  async list(_ctx: RequestContext, prefix: string): Promise<string[]> {
    assertBlobPrefix(prefix);
    const cut = prefix.lastIndexOf('/');
    const base = cut < 0 ? [] : prefix.slice(0, cut).split('/');
    const keys: string[] = [];
    await this.walk(join(this.objects, ...base.map((s) => `${s}.d`)), base, keys);
    // Default sort compares UTF-16 code units, the order the port promises.
    return keys.filter((key) => key.startsWith(prefix)).sort();
  }

  private async walk(dir: string, segments: readonly string[], into: string[]): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw error;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (entry.isDirectory() && name.endsWith('.d')) await this.walk(join(dir, name), [...segments, name.slice(0, -2)], into);
      else if (entry.isFile() && name.endsWith('.o')) into.push([...segments, name.slice(0, -2)].join('/'));
    }
  }

  /** The port's sweep of unfinished writes: {@link sweepTemporaryFiles}. */
  sweepAbandonedWrites(_ctx: RequestContext, olderThan: Date): Promise<number> {
    return this.sweepTemporaryFiles(olderThan);
  }

  /** Removes files of writes that never finished (a process that died mid-write) older than `olderThan`. */
  async sweepTemporaryFiles(olderThan: Date): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.tmp);
    } catch (error) {
      if (isMissing(error)) return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const path = join(this.tmp, name);
      const info = await stat(path).catch(() => undefined);
      if (info !== undefined && info.mtime < olderThan && (await unlink(path).then(() => true, () => false))) removed += 1;
    }
    return removed;
  }
}

/** Writes all of `bytes` at `position` (a `write` may take fewer bytes than it was given). */
async function writeFully(file: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let at = 0; at < bytes.byteLength; ) {
    const { bytesWritten } = await file.write(bytes, at, bytes.byteLength - at, position + at);
    if (bytesWritten === 0) throw new Error('the disk took no bytes of a write');
    at += bytesWritten;
  }
}

function encodeHeader(metadata: BlobMetadata): Buffer {
  const text = `${magic}${JSON.stringify(metadata)}\n`;
  const header = Buffer.alloc(headerBytes, 0x20);
  if (Buffer.byteLength(text) > headerBytes) throw invalidArgument('the content type is too long to store', { field: 'contentType' });
  header.write(text, 0, 'utf8');
  return header;
}

function decodeHeader(raw: Buffer, key: string): BlobMetadata {
  const text = raw.toString('utf8');
  const end = text.indexOf('\n', magic.length);
  if (!text.startsWith(magic) || end < 0) throw aborted(`blob ${key} has no readable header on disk`);
  const parsed = JSON.parse(text.slice(magic.length, end)) as BlobMetadata;
  return { contentType: parsed.contentType, size: parsed.size, createTime: parsed.createTime, sha256: parsed.sha256 };
}
