import { afterAll, beforeAll, describe } from 'vitest';
import type { BlobStore } from '../ports/storage.js';
import { basicBlobTests } from './blob-store-contract/basics.js';
import { concurrencyBlobTests } from './blob-store-contract/concurrency.js';
import { keyBlobTests } from './blob-store-contract/keys.js';
import { streamBlobTests } from './blob-store-contract/streams.js';
import type { BlobContractOptions, BlobStoreGetter } from './blob-store-contract/support.js';

export type { BlobContractOptions } from './blob-store-contract/support.js';
export { badBlobKeys } from './blob-store-contract/keys.js';

/** What a blob contract factory hands back: the store under test and how to dispose of it. */
export interface BlobStoreUnderTest {
  readonly store: BlobStore;
  cleanup(): Promise<void>;
}

/**
 * The tests of the blob-store port, for a store reached through `store` (the storage contract runs them
 * on `storage.blobs`). Tests isolate themselves with unique key prefixes, so the store may hold other data.
 */
export function blobStoreTests(store: BlobStoreGetter, options: BlobContractOptions = {}): void {
  basicBlobTests(store);
  streamBlobTests(store, options);
  keyBlobTests(store, options);
  concurrencyBlobTests(store, options);
}

/**
 * The blob-store contract: every store (memory, filesystem, PostgreSQL, S3, third-party) runs it
 * unchanged, in a vitest file: `describeBlobStoreContract('my store', async () => ({ store, cleanup }))`.
 * `factory` runs once for the suite. Covers metadata and SHA-256 checksums, streamed writes and reads
 * of multi-megabyte objects in bounded chunks (and, unless the store holds objects in this process, in
 * bounded memory), ranges, overwrite, delete, prefix listing, missing and refused keys (traversal,
 * empty, absolute), failed writes that leave no part, and concurrent writers of one key.
 */
export function describeBlobStoreContract(name: string, factory: () => Promise<BlobStoreUnderTest>, options: BlobContractOptions = {}): void {
  describe(`blob-store contract: ${name}`, () => {
    let underTest: BlobStoreUnderTest | undefined;
    beforeAll(async () => {
      underTest = await factory();
    });
    afterAll(async () => {
      await underTest?.cleanup();
      underTest = undefined;
    });
    blobStoreTests(() => {
      if (underTest === undefined) throw new Error('blob-store contract: the factory has not produced a store');
      return underTest.store;
    }, options);
  });
}
