import { describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import type { BlobStore } from '../ports/storage.js';
import { modelFileKey } from '../resources/models/model-files.js';
import { fetchModelFiles } from '../runtime/model-file-fetch.js';
import { MemoryStorage } from '../testing/index.js';
import { blobModelFileSources } from './blob-model-file-sources.js';

const ctx = systemContext('test');
const name = 'accounts/a/models/m';
const sign = (model: string, file: string, ttl: number) => `/signed/${model}/${file}?ttl=${ttl}`;

async function storeWith(files: Record<string, Uint8Array>): Promise<BlobStore> {
  const blobs = new MemoryStorage().blobs;
  for (const [file, bytes] of Object.entries(files)) await blobs.put(ctx, modelFileKey(name, file), bytes, 'application/octet-stream');
  return blobs;
}

describe('blobModelFileSources', () => {
  const files = { 'config.json': new TextEncoder().encode('{"model_type":"llama"}'), 'model.safetensors': new Uint8Array(3 << 20).fill(9) };

  it('lists a READY model’s stored files with the size and SHA-256 the store recorded, streams them and signs URLs', async () => {
    const blobs = await storeWith(files);
    const source = await blobModelFileSources(blobs, sign).sourceOf(ctx, name, { state: 'READY' });
    expect(source?.files.map((f) => [f.path, f.sizeBytes])).toEqual([['config.json', 22], ['model.safetensors', 3 << 20]]);
    expect(source?.files[1]?.sha256).toBe((await blobs.head(ctx, modelFileKey(name, 'model.safetensors')))?.sha256);
    expect(await fetchModelFiles(ctx, source!)).toEqual({ files: 2, bytes: 22 + (3 << 20) });
    expect(source?.signedUrl('config.json', 60)).toBe('/signed/accounts/a/models/m/config.json?ttl=60');
  });

  it('has nothing for a model without files or one still uploading', async () => {
    const blobs = await storeWith(files);
    expect(await blobModelFileSources(blobs, sign).sourceOf(ctx, 'accounts/a/models/other', { state: 'READY' })).toBeUndefined();
    expect(await blobModelFileSources(blobs, sign).sourceOf(ctx, name, { state: 'UPLOADING' })).toBeUndefined();
  });

  it('lets a replica catch bytes that changed in the store after they were recorded, and a file that vanished', async () => {
    const blobs = await storeWith(files);
    const source = (await blobModelFileSources(blobs, sign).sourceOf(ctx, name, { state: 'READY' }))!;
    // The stored object changes under the recorded digest (bit rot): read through a store that flips one byte.
    const rotten: BlobStore = Object.assign(Object.create(blobs) as BlobStore, {
      getStream: async (c: typeof ctx, key: string) => {
        const stream = await blobs.getStream(c, key);
        if (!stream) return undefined;
        const body = (async function* () {
          let first = true;
          for await (const chunk of stream.body) {
            const copy = new Uint8Array(chunk);
            if (first && key.endsWith('model.safetensors')) copy[0] = 1;
            first = false;
            yield copy;
          }
        })();
        return { ...stream, body };
      },
    });
    const rottenSource = (await blobModelFileSources(rotten, sign).sourceOf(ctx, name, { state: 'READY' }))!;
    await expect(fetchModelFiles(ctx, rottenSource)).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('model file model.safetensors of accounts/a/models/m does not match its recorded SHA-256'),
    });
    await blobs.delete(ctx, modelFileKey(name, 'config.json'));
    await expect(fetchModelFiles(ctx, source)).rejects.toMatchObject({ message: 'model file config.json of accounts/a/models/m is missing from the blob store' });
  });
});
