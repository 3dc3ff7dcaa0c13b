import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalS3, type LocalS3 } from './s3-test-server.js';
import { s3BlobStore } from './s3-settings.js';

const ctx = { requestId: 's3-settings' };
let s3: LocalS3;
beforeAll(async () => {
  s3 = await startLocalS3('berth-settings');
});
afterAll(() => s3.stop());

describe('s3BlobStore (settings)', () => {
  it('makes its client on first use, from the endpoint, region, path style and client settings it was given', async () => {
    const store = s3BlobStore({
      bucket: s3.bucket, prefix: 'settings/', endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true,
      client: { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' },
    });
    await store.put(ctx, 'models/a/file.bin', new Uint8Array([1, 2, 3]), 'application/octet-stream');
    const read = await store.get(ctx, 'models/a/file.bin');
    expect([...(read?.bytes ?? [])]).toEqual([1, 2, 3]);
    expect(await store.list(ctx, 'models/')).toEqual(['models/a/file.bin']);
    // The prefix lands in the bucket: a store without it does not see the key.
    const unprefixed = s3BlobStore({ bucket: s3.bucket, endpoint: s3.endpoint, forcePathStyle: true, client: { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } } });
    expect(await unprefixed.list(ctx, 'models/')).toEqual([]);
    expect(await unprefixed.list(ctx, 'settings/')).toEqual(['settings/models/a/file.bin']);
  });

  it('answers UNAVAILABLE, not a crash, when the object store cannot be reached', async () => {
    const store = s3BlobStore({ bucket: 'b', endpoint: 'http://127.0.0.1:9', forcePathStyle: true, client: { credentials: { accessKeyId: 'x', secretAccessKey: 'y' }, maxAttempts: 1 } });
    await expect(store.list(ctx, 'models/')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
