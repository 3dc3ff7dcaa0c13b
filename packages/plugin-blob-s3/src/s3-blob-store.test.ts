import { describeBlobStoreContract } from '@berth/core/testing';
import { S3BlobStore } from './s3-blob-store.js';
import { startLocalS3 } from './s3-test-server.js';

const MiB = 1024 * 1024;
/**
 * s3rver stands in for S3 here: it keeps keys as file names with a suffix (so segments up to 200 bytes)
 * and copies an object into place in several steps (so the race of writers to one key, atomic on S3 and
 * what the store relies on, is not run against it). It does not implement UploadPartCopy, so the copy
 * in parts of objects over 5 GiB is not run against it either. Parts of 5 MiB, two at a time, keep the
 * bounded-memory check meaningful.
 */
const serverLimits = { longestSegmentBytes: 200, atomicWritesOfOneKey: false } as const;

describeBlobStoreContract('S3 (s3rver on loopback)', async () => {
  const s3 = await startLocalS3();
  return { store: new S3BlobStore({ client: s3.client, bucket: s3.bucket, prefix: 'contract/', partBytes: 5 * MiB, queueSize: 2 }), cleanup: () => s3.stop() };
}, serverLimits);

