import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FilesystemBlobStore, storageToken, type GatewayPlugin, type Storage, type Token } from '@berth/core';
import { blobStoreKind, describeStorage, selectStorage } from './select-storage.js';

/** The storage a plugin binds, without starting a gateway. */
function boundStorage(plugin: GatewayPlugin): Storage {
  let storage: Storage | undefined;
  plugin.register({
    bindValue<T>(token: Token<T>, value: T) {
      if (token.key === storageToken.key) storage = value as unknown as Storage;
    },
    bind() {},
    contribute() {},
  });
  if (storage === undefined) throw new Error('no storage bound');
  return storage;
}

const noDatabase = { databaseUrl: undefined };
const ctx = { requestId: 'select-storage' };

describe('blob store selection', () => {
  it('keeps blobs as files under BERTH_DATA_DIR by default', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'berth-data-'));
    try {
      const storage = boundStorage(selectStorage(noDatabase, { BERTH_DATA_DIR: dataDir }));
      expect(storage.blobs).toBeInstanceOf(FilesystemBlobStore);
      await storage.blobs.put(ctx, 'datasets/acme/d/file.jsonl', new Uint8Array([1]), 'application/jsonl');
      expect(await readdir(join(dataDir, 'blobs', 'objects', 'datasets.d'))).toEqual(['acme.d']);
      expect(describeStorage(noDatabase, { BERTH_DATA_DIR: dataDir })).toBe(`memory, blobs fs:${join(dataDir, 'blobs')}`);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('picks the store BERTH_BLOB_STORE names, PostgreSQL by default with a database, and refuses what cannot work', () => {
    expect(blobStoreKind(noDatabase, {})).toBe('fs');
    expect(blobStoreKind({ databaseUrl: 'postgres://db/x' }, {})).toBe('pg');
    expect(blobStoreKind({ databaseUrl: 'postgres://db/x' }, { BERTH_BLOB_STORE: 'fs' })).toBe('fs');
    expect(boundStorage(selectStorage(noDatabase, { BERTH_BLOB_STORE: 'memory' })).blobs).not.toBeInstanceOf(FilesystemBlobStore);
    expect(() => blobStoreKind(noDatabase, { BERTH_BLOB_STORE: 'pg' })).toThrow('BERTH_BLOB_STORE=pg needs DATABASE_URL');
    expect(() => blobStoreKind(noDatabase, { BERTH_BLOB_STORE: 'ftp' })).toThrow('is not one of memory, fs, pg, s3');
    expect(() => selectStorage(noDatabase, { BERTH_BLOB_STORE: 's3' })).toThrow('BERTH_BLOB_STORE=s3 needs BERTH_S3_BUCKET');
    expect(describeStorage(noDatabase, { BERTH_BLOB_STORE: 's3', BERTH_S3_BUCKET: 'b' })).toBe('memory, blobs s3:b');
  });
});
