import { describe, expect, it } from 'vitest';
import { collect, ctx, generatedChunks, generatedSha256, MiB, sha256, uid, type BlobContractOptions, type BlobStoreGetter } from './support.js';

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

/** Concurrent writers and readers of one key. */
export function concurrencyBlobTests(store: BlobStoreGetter, options: BlobContractOptions): void {
  describe('concurrency', () => {
    it.skipIf(options.atomicWritesOfOneKey === false)('leaves exactly one whole object of concurrent writers to one key; readers meanwhile see whole objects (bounded reads)', async () => {
      const key = `${uid('c')}/contended.bin`;
      const size = 2 * MiB + 11;
      const seeds = [11, 12, 13, 14, 15, 16];
      const expected = new Map(seeds.map((seed) => [generatedSha256(seed, size), seed]));
      await store().putStream(ctx, key, generatedChunks(10, size, 128 * 1024), 'application/octet-stream');
      expected.set(generatedSha256(10, size), 10);
      let writing = true;
      const reads: Promise<void>[] = [];
      const reader = async () => {
        for (let i = 0; i < 4 && writing; i += 1) {
          // Yield to timers: an in-memory store answers in microtasks only, which would starve the writers.
          await pause();
          const read = await store().getStream(ctx, key);
          if (read === undefined) throw new Error('the object vanished while it was being replaced');
          try {
            const bytes = await collect(read.body);
            expect(bytes.byteLength).toBe(size);
            expect(expected.has(sha256(bytes))).toBe(true);
            expect(sha256(bytes)).toBe(read.sha256);
          } catch (error) {
            // A store may refuse to finish a read whose object was replaced (ABORTED); never a mix.
            if ((error as { code?: string }).code !== 'ABORTED') throw error;
          }
        }
      };
      for (let i = 0; i < 2; i += 1) reads.push(reader());
      await Promise.all(seeds.map((seed) => store().putStream(ctx, key, generatedChunks(seed, size, 96 * 1024, { onChunk: pause }), `application/x-${seed}`)));
      writing = false;
      await Promise.all(reads);
      const final = await store().get(ctx, key);
      const seed = expected.get(sha256(final!.bytes));
      expect(seeds).toContain(seed);
      expect(await store().head(ctx, key)).toMatchObject({ size, sha256: sha256(final!.bytes), contentType: `application/x-${seed}` });
      expect(await store().list(ctx, key)).toEqual([key]);
    });

    it('keeps concurrent writers of different keys apart', async () => {
      const root = uid('c');
      await Promise.all([21, 22, 23, 24].map((seed) => store().putStream(ctx, `${root}/${seed}`, generatedChunks(seed, MiB + seed, 70_000, { onChunk: pause }), 'application/octet-stream')));
      for (const seed of [21, 22, 23, 24]) expect((await store().head(ctx, `${root}/${seed}`))?.sha256).toBe(generatedSha256(seed, MiB + seed));
      expect(await store().list(ctx, `${root}/`)).toEqual([21, 22, 23, 24].map((seed) => `${root}/${seed}`));
    });
  });
}
