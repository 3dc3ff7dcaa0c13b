import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  aborted, assertBlobKey, collectBlob, invalidArgument, assertBlobPrefix, assertBlobRange, BlobDigest, resolveBlobRange, unavailable,
  type BlobMetadata, type BlobObject, type BlobRange, type BlobReadStream, type BlobStore, type RequestContext,
} from '@berth/core';
import { loadS3Sdk, type S3Sdk } from './s3-sdk.js';

export interface S3BlobStoreOptions {
  /** The SDK client, or a function making it on first use (so the SDK loads only when the store is used). */
  readonly client: S3Client | (() => Promise<S3Client>);
  readonly bucket: string;
  /** Prepended to every key (e.g. `berth/`); default none. */
  readonly prefix?: string;
  /** Part size of multipart uploads, at least 5 MiB (default 8 MiB). */
  readonly partBytes?: number;
  /** Parts uploaded at once (default 2): memory held by one upload is about `partBytes × (queueSize + 1)`. */
  readonly queueSize?: number;
  /** Objects larger than this are copied in parts (S3 copies at most 5 GiB in one request); default 5 GiB. */
  readonly maxSingleCopyBytes?: number;
}

const MiB = 1024 * 1024;
/** Where uploads land before they are copied to their key: a reserved first segment, refused as a key and never listed. */
const stagingSegment = '.berth-staging/';

interface S3Failure {
  readonly name?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}
const status = (error: unknown) => (error as S3Failure).$metadata?.httpStatusCode;
const isMissing = (error: unknown) => status(error) === 404 || (error as S3Failure).name === 'NotFound' || (error as S3Failure).name === 'NoSuchKey';

/**
 * Blobs on an S3-compatible object store (AWS SDK v3). A write streams through a multipart upload
 * (`@aws-sdk/lib-storage`, a few parts in memory at a time) to a staging object, computing the SHA-256
 * on the way, then is copied server-side onto its key with its metadata (content type, `sha256`,
 * `create-time`): the copy is what makes the object visible, whole, with its checksum. A failed write
 * aborts the upload and leaves the key as it was. Reads take the metadata from HEAD and stream the bytes
 * with one ranged GET when the body is iterated; a GET answering another ETag (the object was replaced in
 * between) fails ABORTED.
 */
export class S3BlobStore implements BlobStore {
  private readonly clientSource: S3Client | (() => Promise<S3Client>);
  private connecting: Promise<{ readonly client: S3Client; readonly sdk: S3Sdk }> | undefined;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partBytes: number;
  private readonly queueSize: number;
  private readonly maxSingleCopyBytes: number;

  constructor(options: S3BlobStoreOptions) {
    this.clientSource = options.client;
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? '';
    this.partBytes = Math.max(5 * MiB, options.partBytes ?? 8 * MiB);
    this.queueSize = Math.max(1, options.queueSize ?? 2);
    this.maxSingleCopyBytes = options.maxSingleCopyBytes ?? 5 * 1024 * MiB;
  }

  /** The client and the SDK's commands, loaded on first use. */
  private connect(): Promise<{ readonly client: S3Client; readonly sdk: S3Sdk }> {
    const source = this.clientSource;
    this.connecting ??= Promise.all([typeof source === 'function' ? source() : source, loadS3Sdk()]).then(([client, sdk]) => ({ client, sdk }));
    return this.connecting;
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    if (key.startsWith(stagingSegment)) throw invalidArgument(`blob keys under ${stagingSegment} are reserved for uploads in progress`, { reason: 'BAD_BLOB_KEY' });
    return `${this.prefix}${key}`;
  }

  private async send<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (isMissing(error) || status(error) === 412) throw error;
      throw unavailable(`the object store failed to ${what}`, { cause: error });
    }
  }

  async put(ctx: RequestContext, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.putStream(ctx, key, (async function* () {
      yield bytes;
    })(), contentType);
  }

  async putStream(_ctx: RequestContext, key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<number> {
    const { client, sdk: { s3, storage } } = await this.connect();
    const target = this.objectKey(key);
    const staging = `${this.prefix}${stagingSegment}${randomUUID()}`;
    const digest = new BlobDigest();
    const hashed = async function* (): AsyncIterable<Uint8Array> {
      for await (const chunk of chunks) {
        digest.update(chunk);
        yield chunk;
      }
    };
    try {
      const upload = new storage.Upload({
        client, partSize: this.partBytes, queueSize: this.queueSize, leavePartsOnError: false,
        params: { Bucket: this.bucket, Key: staging, Body: Readable.from(hashed(), { objectMode: false }), ContentType: contentType },
      });
      await upload.done();
      const metadata = { sha256: digest.hex(), 'create-time': new Date().toISOString() };
      if (digest.size > this.maxSingleCopyBytes) await this.copyInParts(staging, target, digest.size, contentType, metadata);
      else {
        await this.send('copy an object', () => client.send(new s3.CopyObjectCommand({
          Bucket: this.bucket, Key: target, CopySource: copySource(this.bucket, staging), MetadataDirective: 'REPLACE', ContentType: contentType, Metadata: metadata,
        })));
      }
      return digest.size;
    } catch (error) {
      throw isStoreError(error) ? unavailable('the object store failed to store an object', { cause: error }) : error;
    } finally {
      await client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: staging })).catch(() => undefined);
    }
  }

  /** Copies a staging object larger than one copy request allows, part by part, with its metadata. */
  private async copyInParts(staging: string, target: string, size: number, contentType: string, metadata: Record<string, string>): Promise<void> {
    const { client, sdk: { s3 } } = await this.connect();
    const created = await this.send('start a copy', () => client.send(new s3.CreateMultipartUploadCommand({ Bucket: this.bucket, Key: target, ContentType: contentType, Metadata: metadata })));
    const uploadId = created.UploadId!;
    try {
      const parts: Array<{ ETag: string; PartNumber: number }> = [];
      const partSize = Math.max(this.partBytes, Math.ceil(size / 10_000));
      for (let at = 0, part = 1; at < size; at += partSize, part += 1) {
        const end = Math.min(size, at + partSize) - 1;
        const copied = await this.send('copy a part', () => client.send(new s3.UploadPartCopyCommand({
          Bucket: this.bucket, Key: target, UploadId: uploadId, PartNumber: part, CopySource: copySource(this.bucket, staging), CopySourceRange: `bytes=${at}-${end}`,
        })));
        parts.push({ ETag: copied.CopyPartResult!.ETag!, PartNumber: part });
      }
      await this.send('finish a copy', () => client.send(new s3.CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: target, UploadId: uploadId, MultipartUpload: { Parts: parts } })));
    } catch (error) {
      await client.send(new s3.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: target, UploadId: uploadId })).catch(() => undefined);
      throw error;
    }
  }

  private async headObject(objectKey: string): Promise<(BlobMetadata & { etag: string }) | undefined> {
    const { client, sdk: { s3 } } = await this.connect();
    try {
      const head = await this.send('read an object', () => client.send(new s3.HeadObjectCommand({ Bucket: this.bucket, Key: objectKey })));
      return {
        contentType: head.ContentType ?? 'application/octet-stream',
        size: head.ContentLength ?? 0,
        createTime: head.Metadata?.['create-time'] ?? (head.LastModified ?? new Date(0)).toISOString(),
        // Objects put into the bucket by other tools carry no recorded checksum.
        sha256: head.Metadata?.sha256 ?? '',
        etag: head.ETag ?? '',
      };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async head(_ctx: RequestContext, key: string): Promise<BlobMetadata | undefined> {
    const found = await this.headObject(this.objectKey(key));
    if (found === undefined) return undefined;
    const { etag: _etag, ...metadata } = found;
    return metadata;
  }

  async getStream(_ctx: RequestContext, key: string, range?: BlobRange): Promise<BlobReadStream | undefined> {
    const objectKey = this.objectKey(key);
    assertBlobRange(range);
    const found = await this.headObject(objectKey);
    if (found === undefined) return undefined;
    const { etag, ...metadata } = found;
    const { offset, length } = resolveBlobRange(range, metadata.size);
    const { client, sdk: { s3 } } = await this.connect();
    const get = () => client.send(new s3.GetObjectCommand({ Bucket: this.bucket, Key: objectKey, Range: `bytes=${offset}-${offset + length - 1}`, IfMatch: etag }));
    async function* body(): AsyncIterable<Uint8Array> {
      if (length === 0) return;
      let response;
      try {
        response = await get();
      } catch (error) {
        if (isMissing(error) || status(error) === 412) throw aborted(`blob ${key} was replaced while it was read`);
        throw unavailable('the object store failed to read an object', { cause: error });
      }
      const stream = response.Body as Readable;
      try {
        if (response.ETag !== undefined && response.ETag !== etag) throw aborted(`blob ${key} was replaced while it was read`);
        for await (const chunk of stream) yield chunk as Uint8Array;
      } finally {
        stream.destroy();
      }
    }
    return { ...metadata, offset, length, body: body() };
  }

  async get(ctx: RequestContext, key: string): Promise<BlobObject | undefined> {
    return collectBlob(await this.getStream(ctx, key));
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    const { client, sdk: { s3 } } = await this.connect();
    const objectKey = this.objectKey(key);
    if ((await this.headObject(objectKey)) === undefined) return false;
    await this.send('delete an object', () => client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey })));
    return true;
  }

  async list(_ctx: RequestContext, prefix: string): Promise<string[]> {
    const { client, sdk: { s3 } } = await this.connect();
    assertBlobPrefix(prefix);
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.send('list objects', () => client.send(new s3.ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${this.prefix}${prefix}`, ContinuationToken: token })));
      for (const item of page.Contents ?? []) {
        const key = (item.Key ?? '').slice(this.prefix.length);
        if (!key.startsWith(stagingSegment) && isValidKey(key)) keys.push(key);
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    // Default sort compares UTF-16 code units, the order the port promises (S3 lists in UTF-8 byte order).
    return keys.sort();
  }
}

function isValidKey(key: string): boolean {
  try {
    assertBlobKey(key);
    return true;
  } catch {
    return false;
  }
}

/** `CopySource` is `bucket/key` with the key URL-encoded (slashes kept). */
function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * An error of the object store (the SDK's, carrying `$metadata`), which the caller sees as UNAVAILABLE;
 * anything else (what the producer of the bytes threw, or an error of the port) reaches it as it is.
 */
function isStoreError(error: unknown): boolean {
  return (error as S3Failure).$metadata !== undefined;
}
