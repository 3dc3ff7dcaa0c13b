/**
 * @berth/plugin-blob-s3 — the blob store on any S3-compatible object store (AWS S3, MinIO, Ceph, R2…),
 * on the AWS SDK v3. Hand it to a storage plugin: `memoryStorage({ blobs })`, `postgresStorage({ blobs })`.
 */
export { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';
export { s3BlobStore, type S3BlobStoreSettings } from './s3-settings.js';
