import { afterAll, beforeAll, describe } from 'vitest';
import type { Storage } from '../ports/storage.js';
import { etagTests } from './storage-contract/etags.js';
import { invariantTests } from './storage-contract/invariants.js';
import { listingTests } from './storage-contract/listing.js';
import { kvTests, outboxTests, transactionTests } from './storage-contract/others.js';
import { blobStoreTests, type BlobContractOptions } from './blob-store-contract.js';
import { queueTests } from './storage-contract/queue.js';
import { resourceTests } from './storage-contract/resources.js';
import { uploadPlanTests } from './storage-contract/upload-plans.js';

export { contractDeclarations } from './storage-contract/listing.js';

/** What a contract-suite factory hands back: the storage under test and how to dispose of it. */
export interface StorageUnderTest {
  readonly storage: Storage;
  cleanup(): Promise<void>;
}

/**
 * The storage contract: every adapter (memory, PostgreSQL, third-party) runs it unchanged, in a vitest
 * file: `describeStorageContract('my store', async () => ({ storage, cleanup }))`.
 *
 * `factory` runs once for the whole suite; tests share that storage and isolate themselves with unique
 * names, queues, consumers and keys, so the store may hold other data. The outbox tests acknowledge
 * whatever a fresh consumer finds first. Uses short real leases and ttls (50–400 ms) and no fake
 * clock. Covers every port and every code the port documents, the concurrency promises (one winner
 * among concurrent creates, no lost etag-checked update, no job claimed twice, exact concurrent
 * increments, invariant locks and the last-admin rule under races, AIP-154 etags through a resource service,
 * no upload announcement lost among concurrent ones), AIP-160 filters of every kind and field type, orderings with nulls, keyset paging and
 * transactions; the blob-store contract (`describeBlobStoreContract`) runs on `storage.blobs` with `options.blobs`.
 */
export function describeStorageContract(name: string, factory: () => Promise<StorageUnderTest>, options: { readonly blobs?: BlobContractOptions } = {}): void {
  describe(`storage contract: ${name}`, () => {
    let underTest: StorageUnderTest | undefined;
    beforeAll(async () => {
      underTest = await factory();
    });
    afterAll(async () => {
      await underTest?.cleanup();
      underTest = undefined;
    });
    const storage = (): Storage => {
      if (underTest === undefined) throw new Error('storage contract: the factory has not produced a storage');
      return underTest.storage;
    };
    resourceTests(storage);
    listingTests(storage);
    blobStoreTests(() => storage().blobs, options.blobs);
    queueTests(storage);
    outboxTests(storage);
    kvTests(storage);
    transactionTests(storage);
    invariantTests(storage);
    etagTests(storage);
    uploadPlanTests(storage);
  });
}
