import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeBlobStoreContract } from '../testing/blob-store-contract.js';
import { badBlobKeys } from '../testing/blob-store-contract/keys.js';
import { FilesystemBlobStore } from './filesystem-blob-store.js';

const ctx = { requestId: 'fs-blobs' };

describeBlobStoreContract('filesystem', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'berth-blobs-'));
  // No fdatasync in the contract run: the suite writes hundreds of megabytes on a shared machine.
  return { store: new FilesystemBlobStore({ directory, durable: false }), cleanup: () => rm(directory, { recursive: true, force: true }) };
});

describe('filesystem blob store', () => {
  it('keeps every file inside its directory, whatever key is refused, and leaves no temporary file', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'berth-blobs-'));
    const store = new FilesystemBlobStore({ directory: join(parent, 'store') });
    try {
      for (const key of badBlobKeys) await expect(store.put(ctx, key, new Uint8Array([1]), 'text/plain')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await store.put(ctx, 'a/b', new Uint8Array([1]), 'text/plain');
      expect(await readdir(parent)).toEqual(['store']);
      expect((await readdir(join(parent, 'store'))).sort()).toEqual(['objects', 'tmp']);
      expect(await readdir(join(parent, 'store', 'tmp'))).toEqual([]);
      expect(await readdir(join(parent, 'store', 'objects', 'a.d'))).toEqual(['b.o']);
      await store.delete(ctx, 'a/b');
      expect(await readdir(join(parent, 'store', 'objects'))).toEqual([]);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('reads what an earlier store on the same directory wrote, and sweeps abandoned temporary files', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'berth-blobs-'));
    try {
      await new FilesystemBlobStore({ directory }).put(ctx, 'kept/x.bin', new Uint8Array([4, 5]), 'application/octet-stream');
      const again = new FilesystemBlobStore({ directory });
      expect(Array.from((await again.get(ctx, 'kept/x.bin'))?.bytes ?? [])).toEqual([4, 5]);
      await writeFile(join(directory, 'tmp', 'abandoned.tmp'), 'partial');
      expect(await again.sweepTemporaryFiles(new Date(Date.now() - 60_000))).toBe(0);
      expect(await again.sweepTemporaryFiles(new Date(Date.now() + 60_000))).toBe(1);
      expect(await readdir(join(directory, 'tmp'))).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('records the size and SHA-256 of objects on either side of a write slice, fed in odd pieces', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'berth-blobs-'));
    const store = new FilesystemBlobStore({ directory, durable: false });
    const MiB = 1024 * 1024;
    try {
      // Empty, in one slice, exactly one slice, one byte over, and several slices.
      const sizes = [0, 1, MiB - 1, MiB, MiB + 1, 3 * MiB + 12_345];
      await Promise.all(sizes.map(async (size) => {
        const bytes = new Uint8Array(size).map((_, i) => (i * 31 + size) & 0xff);
        async function* pieces(): AsyncIterable<Uint8Array> {
          for (let at = 0; at < size; at += 70_001) yield bytes.slice(at, at + 70_001);
        }
        expect(await store.putStream(ctx, `slices/${size}`, pieces(), 'application/octet-stream')).toBe(size);
        const head = await store.head(ctx, `slices/${size}`);
        expect(head).toMatchObject({ size, sha256: createHash('sha256').update(bytes).digest('hex') });
        expect(Buffer.from((await store.get(ctx, `slices/${size}`))!.bytes).equals(Buffer.from(bytes))).toBe(true);
      }));
      expect(await readdir(join(directory, 'tmp'))).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
