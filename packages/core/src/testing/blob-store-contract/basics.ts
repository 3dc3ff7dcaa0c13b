import { describe, expect, it } from 'vitest';
import { ctx, expectBytes, sha256, uid, type BlobStoreGetter } from './support.js';

/** Bytes round trip, metadata and checksums, overwrite, delete, prefix listing. */
export function basicBlobTests(store: BlobStoreGetter): void {
  describe('objects', () => {
    it('stores bytes and reads them back with type, size, time and checksum', async () => {
      const key = `${uid('b')}/file.bin`;
      const bytes = new Uint8Array([0, 1, 2, 254, 255, 0]);
      const before = Date.now();
      await store().put(ctx, key, bytes, 'application/octet-stream');
      bytes[0] = 99;
      const blob = await store().get(ctx, key);
      expect(blob).toBeDefined();
      expect(Array.from(blob?.bytes ?? [])).toEqual([0, 1, 2, 254, 255, 0]);
      expect(blob?.bytes).toBeInstanceOf(Uint8Array);
      expect(blob?.contentType).toBe('application/octet-stream');
      expect(blob?.size).toBe(6);
      expect(Date.parse(blob?.createTime ?? '')).toBeGreaterThanOrEqual(before - 1000);
      const head = await store().head(ctx, key);
      expect(head).toEqual({ contentType: 'application/octet-stream', size: 6, createTime: blob?.createTime, sha256: sha256(new Uint8Array([0, 1, 2, 254, 255, 0])) });
      expect(await store().get(ctx, `${key}.missing`)).toBeUndefined();
      expect(await store().head(ctx, `${key}.missing`)).toBeUndefined();
      expect(await store().getStream(ctx, `${key}.missing`)).toBeUndefined();
      expect(await store().getStream(ctx, `${key}.missing`, { offset: 5, length: 1 })).toBeUndefined();
    });

    it('records the SHA-256 of what was written, by put and by putStream', async () => {
      const key = `${uid('b')}/abc.txt`;
      await store().put(ctx, key, new TextEncoder().encode('abc'), 'text/plain');
      expect((await store().head(ctx, key))?.sha256).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      async function* pieces(): AsyncIterable<Uint8Array> {
        for (const piece of ['a', '', 'b', 'c']) yield new TextEncoder().encode(piece);
      }
      const streamed = `${uid('b')}/abc.txt`;
      expect(await store().putStream(ctx, streamed, pieces(), 'text/plain')).toBe(3);
      expect((await store().head(ctx, streamed))?.sha256).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      const empty = `${uid('b')}/empty`;
      await store().put(ctx, empty, new Uint8Array(), 'text/plain');
      expect(await store().head(ctx, empty)).toMatchObject({ size: 0, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' });
    });

    it('stores an empty blob and overwrites on put, with the new type, size, checksum and time', async () => {
      const key = `${uid('b')}/x`;
      await store().put(ctx, key, new Uint8Array(), 'text/plain');
      expect((await store().get(ctx, key))?.size).toBe(0);
      const first = await store().head(ctx, key);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store().put(ctx, key, new TextEncoder().encode('héllo'), 'text/plain; charset=utf-8');
      const blob = await store().get(ctx, key);
      expect(new TextDecoder().decode(blob?.bytes)).toBe('héllo');
      expect(blob?.size).toBe(6);
      expect(blob?.contentType).toBe('text/plain; charset=utf-8');
      const second = await store().head(ctx, key);
      expect(second?.sha256).toBe(sha256(new TextEncoder().encode('héllo')));
      expect(Date.parse(second?.createTime ?? '')).toBeGreaterThanOrEqual(Date.parse(first?.createTime ?? ''));
    });

    it('stores a stream of chunks (more than one write slice), replacing an older object, and an empty stream', async () => {
      const key = `${uid('b')}/streamed.jsonl`;
      await store().put(ctx, key, new Uint8Array([9, 9, 9]), 'text/plain');
      const piece = Uint8Array.from({ length: 1024 * 1024 + 3 }, (_, i) => i % 251);
      async function* chunks(): AsyncIterable<Uint8Array> {
        for (let i = 0; i < 5; i += 1) yield piece.slice();
      }
      expect(await store().putStream(ctx, key, chunks(), 'application/jsonl')).toBe(5 * piece.byteLength);
      const blob = await store().get(ctx, key);
      expect(blob?.size).toBe(5 * piece.byteLength);
      expect(blob?.contentType).toBe('application/jsonl');
      expectBytes(blob?.bytes.subarray(4 * piece.byteLength), piece);
      expect(blob?.bytes[piece.byteLength + 250]).toBe(piece[250]);
      expect((await store().head(ctx, key))?.sha256).toBe(sha256(blob!.bytes));
      const empty = `${uid('b')}/empty`;
      async function* none(): AsyncIterable<Uint8Array> {}
      expect(await store().putStream(ctx, empty, none(), 'text/plain')).toBe(0);
      expect((await store().get(ctx, empty))?.size).toBe(0);
    });

    it('deletes and reports whether something was deleted', async () => {
      const key = `${uid('b')}/gone`;
      await store().put(ctx, key, new Uint8Array([1]), 'image/png');
      expect(await store().delete(ctx, key)).toBe(true);
      expect(await store().get(ctx, key)).toBeUndefined();
      expect(await store().head(ctx, key)).toBeUndefined();
      expect(await store().delete(ctx, key)).toBe(false);
      expect(await store().delete(ctx, `${uid('b')}/never`)).toBe(false);
    });

    it('keeps a key and the keys under it apart (a/b and a/b/c), with unusual characters', async () => {
      const root = uid('b');
      const keys = [`${root}/a/b`, `${root}/a/b/c`, `${root}/a/b.d`, `${root}/a/b.o`, `${root}/ünï cödé/~x+y=z@%20`, `${root}/.hidden/.x`];
      for (const [i, key] of keys.entries()) await store().put(ctx, key, new Uint8Array([i]), 'application/octet-stream');
      for (const [i, key] of keys.entries()) expect(Array.from((await store().get(ctx, key))?.bytes ?? [])).toEqual([i]);
      expect(await store().list(ctx, `${root}/`)).toEqual([...keys].sort());
      expect(await store().delete(ctx, `${root}/a/b`)).toBe(true);
      expect(await store().list(ctx, `${root}/a/`)).toEqual([`${root}/a/b.d`, `${root}/a/b.o`, `${root}/a/b/c`]);
      expect(Array.from((await store().get(ctx, `${root}/a/b/c`))?.bytes ?? [])).toEqual([1]);
    });

    it('lists keys under a prefix, sorted, treating the prefix literally', async () => {
      const root = uid('b');
      const keys = [`${root}/a/2`, `${root}/a/1`, `${root}/a/10`, `${root}/ab`, `${root}/b/1`, `${root}/a%/x`, `${root}/a_/y`, `${root}/A/1`];
      for (const key of keys) await store().put(ctx, key, new Uint8Array([1]), 'application/octet-stream');
      expect(await store().list(ctx, `${root}/a/`)).toEqual([`${root}/a/1`, `${root}/a/10`, `${root}/a/2`]);
      expect(await store().list(ctx, `${root}/a`)).toEqual([`${root}/a%/x`, `${root}/a/1`, `${root}/a/10`, `${root}/a/2`, `${root}/a_/y`, `${root}/ab`]);
      expect(await store().list(ctx, `${root}/a%`)).toEqual([`${root}/a%/x`]);
      expect(await store().list(ctx, `${root}/a_`)).toEqual([`${root}/a_/y`]);
      expect(await store().list(ctx, `${root}/`)).toEqual([...keys].sort());
      expect(await store().list(ctx, root)).toEqual([...keys].sort());
      expect(await store().list(ctx, `${uid('b')}/`)).toEqual([]);
      expect(await store().list(ctx, `${root}/a/1`)).toEqual([`${root}/a/1`, `${root}/a/10`]);
    });
  });
}
