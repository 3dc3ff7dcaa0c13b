import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { S3BlobStore } from './s3-blob-store.js';
import { loadS3Sdk } from './s3-sdk.js';

/** Where the store keeps objects and how to reach the object store. Credentials come from the SDK's usual chain. */
export interface S3BlobStoreSettings {
  readonly bucket: string;
  /** Prepended to every key, e.g. `berth/`. */
  readonly prefix?: string;
  /** S3-compatible endpoint (MinIO, Ceph…); AWS when absent. */
  readonly endpoint?: string;
  readonly region?: string;
  /** Path-style addressing (`endpoint/bucket/key`), what most S3-compatible servers need. */
  readonly forcePathStyle?: boolean;
  readonly partBytes?: number;
  readonly queueSize?: number;
  /** Anything else for the SDK client (credentials, checksum behaviour, retries). */
  readonly client?: S3ClientConfig;
}

/**
 * An {@link S3BlobStore} with its own SDK client, from plain settings (what a host reads from its environment).
 * The SDK is loaded and the client made on the store's first call, not here.
 */
export function s3BlobStore(settings: S3BlobStoreSettings): S3BlobStore {
  const client = async () => new (await loadS3Sdk()).s3.S3Client({
    region: settings.region ?? 'us-east-1',
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    ...(settings.forcePathStyle === undefined ? {} : { forcePathStyle: settings.forcePathStyle }),
    ...settings.client,
  });
  return new S3BlobStore({
    client, bucket: settings.bucket,
    ...(settings.prefix === undefined ? {} : { prefix: settings.prefix }),
    ...(settings.partBytes === undefined ? {} : { partBytes: settings.partBytes }),
    ...(settings.queueSize === undefined ? {} : { queueSize: settings.queueSize }),
  });
}
