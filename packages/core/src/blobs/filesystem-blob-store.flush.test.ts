import { createHash } from 'node:crypto';
import type * as FsPromises from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** What the wrapped `datasync` of every file the store opens saw. */
const syncs = { started: 0, inFlight: 0, mostInFlight: 0, failNext: false };

// Every FileHandle the store opens gets a `datasync` that is counted, takes a few milliseconds (so the
// writes that follow run beside it), and can be made to fail once.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  const open = async (...args: Parameters<typeof actual.open>): Promise<FileHandle> => {
    const handle = await actual.open(...args);
    const datasync = handle.datasync.bind(handle);
    handle.datasync = async () => {
      syncs.started += 1;
      syncs.inFlight += 1;
      syncs.mostInFlight = Math.max(syncs.mostInFlight, syncs.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (syncs.failNext) {
          syncs.failNext = false;
          throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
        }
        await datasync();
      } finally {
        syncs.inFlight -= 1;
      }
    };
    return handle;
  };
  return { ...actual, open, default: { ...actual, open } };
});

const { FilesystemBlobStore } = await import('./filesystem-blob-store.js');

const ctx = { requestId: 'fs-blobs-flush' };
const MiB = 1024 * 1024;

/** `size` bytes in 100,000-byte pieces (never aligned with a write slice). */
async function* pieces(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += 100_000) yield bytes.subarray(at, at + 100_000);
}

describe('filesystem blob store: flushing behind a durable write', () => {
  afterEach(() => {
    Object.assign(syncs, { started: 0, inFlight: 0, mostInFlight: 0, failNext: false });
  });

  it('flushes every flushEveryBytes while the bytes stream, one flush at a time, then once before the object is visible', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'berth-blobs-'));
    try {
      const store = new FilesystemBlobStore({ directory, flushEveryBytes: MiB });
      const bytes = new Uint8Array(6 * MiB + 7).map((_, i) => (i * 13) & 0xff);
      expect(await store.putStream(ctx, 'big.bin', pieces(bytes), 'application/octet-stream')).toBe(bytes.byteLength);
      // The first full slice always starts a flush behind the stream; the slices written while it runs
      // (each flush takes 5 ms here) start none, so at most six run behind; the last one is the flush
      // before the rename.
      expect(syncs.started).toBeGreaterThanOrEqual(2);
      expect(syncs.started).toBeLessThanOrEqual(7);
      expect(syncs.mostInFlight).toBe(1);
      expect((await store.head(ctx, 'big.bin'))?.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(Buffer.from((await store.get(ctx, 'big.bin'))!.bytes).equals(Buffer.from(bytes))).toBe(true);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('does not flush behind a write smaller than flushEveryBytes, nor at all when the store is not durable', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'berth-blobs-'));
    try {
      await new FilesystemBlobStore({ directory }).putStream(ctx, 'small.bin', pieces(new Uint8Array(3 * MiB)), 'application/octet-stream');
      expect(syncs.started).toBe(1);
      await new FilesystemBlobStore({ directory, durable: false, flushEveryBytes: MiB }).putStream(ctx, 'fast.bin', pieces(new Uint8Array(3 * MiB)), 'application/octet-stream');
      expect(syncs.started).toBe(1);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('fails the write soon after a flush behind it fails, keeps the object before it and leaves no temporary file', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'berth-blobs-'));
    try {
      const store = new FilesystemBlobStore({ directory, flushEveryBytes: MiB });
      await store.put(ctx, 'kept.bin', new Uint8Array([1, 2, 3]), 'application/octet-stream');
      syncs.failNext = true;
      // Up to 256 MiB, a MiB at a time with a pause between: the write stops at the first slice sent
      // after the failed flush (5 ms in), not at the end of the stream.
      let offered = 0;
      async function* slow(): AsyncIterable<Uint8Array> {
        const piece = new Uint8Array(MiB);
        for (let i = 0; i < 256; i += 1) {
          offered += 1;
          yield piece;
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }
      await expect(store.putStream(ctx, 'kept.bin', slow(), 'application/octet-stream')).rejects.toThrow(/EIO/);
      expect(offered).toBeLessThan(256);
      expect(Array.from((await store.get(ctx, 'kept.bin'))?.bytes ?? [])).toEqual([1, 2, 3]);
      expect(await readdir(join(directory, 'tmp'))).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('refuses a flushEveryBytes below one write slice', async () => {
    expect(() => new FilesystemBlobStore({ directory: tmpdir(), flushEveryBytes: 1000 })).toThrow(/flushEveryBytes/);
  });
});
