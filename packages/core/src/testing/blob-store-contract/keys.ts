import { describe, expect, it } from 'vitest';
import { Code } from '../../errors/code.js';
import { ctx, expectCode, generatedChunks, uid, type BlobContractOptions, type BlobStoreGetter } from './support.js';

/** Keys the port refuses: traversal, absolute, empty, empty segments, control characters, too long. */
export const badBlobKeys: readonly string[] = [
  '', '/', '/etc/passwd', '../outside', 'a/../../outside', 'a/..', '..', '.', 'a/./b', 'a//b', 'a/', 'a\\b', '..\\x',
  'a\u0000b', 'a\nb', 'a\u007fb', `a/${'x'.repeat(251)}`, `${'k/'.repeat(512)}k`,
];

/** The key rules, the same on every store. */
export function keyBlobTests(store: BlobStoreGetter, options: BlobContractOptions): void {
  describe('keys', () => {
    it('refuses bad keys on every method with INVALID_ARGUMENT, writing nothing', async () => {
      for (const key of badBlobKeys) {
        await expectCode(store().put(ctx, key, new Uint8Array([1]), 'text/plain'), Code.INVALID_ARGUMENT);
        await expectCode(store().putStream(ctx, key, generatedChunks(1, 10, 5), 'text/plain'), Code.INVALID_ARGUMENT);
        await expectCode(store().get(ctx, key), Code.INVALID_ARGUMENT);
        await expectCode(store().head(ctx, key), Code.INVALID_ARGUMENT);
        await expectCode(store().getStream(ctx, key), Code.INVALID_ARGUMENT);
        await expectCode(store().delete(ctx, key), Code.INVALID_ARGUMENT);
      }
    });

    it('refuses list prefixes that could not begin a key, and accepts the empty prefix', async () => {
      for (const prefix of ['/', '/etc/', '../', 'a/../', 'a//', './x', 'a\\', 'a\u0000']) {
        await expectCode(store().list(ctx, prefix), Code.INVALID_ARGUMENT);
      }
      const key = `${uid('k')}/x`;
      await store().put(ctx, key, new Uint8Array([1]), 'text/plain');
      expect(await store().list(ctx, '')).toContain(key);
    });

    it('accepts the longest keys and segments', async () => {
      const segment = 'é'.repeat(Math.floor((options.longestSegmentBytes ?? 250) / 2));
      const key = `${uid('k')}/${segment}`;
      await store().put(ctx, key, new Uint8Array([7]), 'text/plain');
      expect(Array.from((await store().get(ctx, key))?.bytes ?? [])).toEqual([7]);
      const root = uid('k');
      const long = `${root}/${'k/'.repeat(Math.floor((1024 - root.length - 2) / 2))}k`;
      expect(new TextEncoder().encode(long).byteLength).toBeLessThanOrEqual(1024);
      await store().put(ctx, long, new Uint8Array([8]), 'text/plain');
      expect(await store().list(ctx, `${root}/`)).toEqual([long]);
    });
  });
}
