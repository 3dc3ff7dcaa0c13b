import { assertBlobKey } from '../blobs/blob-keys.js';
import { ByteBound } from '../blobs/byte-bound.js';
import { deleteBlobsUnder } from '../blobs/delete-under.js';
import { parseResourceName } from '../names/resource-name.js';
import type { StreamedRequestBody } from '../api/route-spec.js';
import { failedPrecondition, invalidArgument, isGatewayError, permissionDenied } from '../errors/index.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { Clock } from '../ports/clock.js';
import type { BlobMetadata, BlobStore } from '../ports/storage.js';
import type { GatewaySecrets } from '../resources/common/secrets.js';
import { SignedFileUrls, type SignedFileRequest, type SignedMethod } from '../resources/common/signed-file-urls.js';

export interface TrainingFilesOptions {
  /** Largest file a trainer may upload, in bytes. Default 16 GiB (the model-file default). */
  readonly maxFileBytes?: number;
  /** How long a signed URL stays valid when the caller names no time. Default 6 hours (a training step can be long). */
  readonly urlTtlMs?: number;
}

/**
 * The files of a reinforcement fine-tuning job's training steps (step inputs, checkpoints, metrics), kept in
 * the blob store under `training/<account>/<jobId>/<path>`, and the signed URLs through which a trainer
 * running outside the gateway's process (a Kubernetes Job) reads and writes them:
 * `/v1/accounts/<a>/reinforcementFineTuningJobs/<j>/files/<path>` (the path percent-encoded in one segment),
 * bound to one method, one file and one expiry. The signature is the only credential a trainer pod holds.
 */
export class TrainingFiles {
  readonly maxFileBytes: number;
  private readonly urls: SignedFileUrls;

  constructor(
    private readonly blobs: BlobStore,
    secrets: GatewaySecrets,
    clock: Clock,
    options: TrainingFilesOptions = {},
  ) {
    this.maxFileBytes = options.maxFileBytes ?? 16 * 1024 ** 3;
    this.urls = new SignedFileUrls(secrets, clock, 'berth:training-files', options.urlTtlMs ?? 6 * 3600_000);
  }

  /** The blob key of a job's file. INVALID_ARGUMENT for a name that is not a job's, or a path the key rules refuse. */
  keyOf(job: string, path: string): string {
    assertBlobKey(path);
    return `${this.prefixOf(job)}${path}`;
  }

  /** The key prefix under which every file of `job` lies (ends with `/`). INVALID_ARGUMENT for a name that is not a job's. */
  prefixOf(job: string): string {
    const { accountId, id } = parseResourceName(job, 'reinforcementFineTuningJobs', 'job');
    return `training/${accountId}/${id}/`;
  }

  /** A signed URL (relative to the gateway's origin) for `method` on one file of a job. */
  signedUrl(job: string, path: string, method: SignedMethod, ttlMs?: number): string {
    this.keyOf(job, path);
    return this.urls.url(job, path, method, ttlMs);
  }

  head(ctx: RequestContext, job: string, path: string): Promise<BlobMetadata | undefined> {
    return this.blobs.head(ctx, this.keyOf(job, path));
  }

  /** Stores bytes at a job's file (the gateway's own writes: step inputs, markers). */
  async write(ctx: RequestContext, job: string, path: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.blobs.put(ctx, this.keyOf(job, path), bytes, contentType);
  }

  /** Reads a small file whole (JSON inputs, metrics, markers); undefined when absent. */
  async read(ctx: RequestContext, job: string, path: string): Promise<Uint8Array | undefined> {
    return (await this.blobs.get(ctx, this.keyOf(job, path)))?.bytes;
  }

  /** Copies a stored object (any key) to a job's file, streamed. FAILED_PRECONDITION when the source is absent. */
  async copyFrom(ctx: RequestContext, sourceKey: string, job: string, path: string): Promise<void> {
    const source = await this.blobs.getStream(ctx, sourceKey);
    if (!source) throw failedPrecondition(`the stored object ${JSON.stringify(sourceKey)} is missing`);
    await this.blobs.putStream(ctx, this.keyOf(job, path), source.body, source.contentType);
  }

  /** Deletes a job's files, except those whose path starts with one of `keep`. */
  async deleteFiles(ctx: RequestContext, job: string, keep: readonly string[] = []): Promise<number> {
    const prefix = this.prefixOf(job);
    return deleteBlobsUnder(ctx, this.blobs, prefix, (key) => keep.some((kept) => key.startsWith(prefix + kept)));
  }

  /** A signed upload: streams the body to the store, at most {@link maxFileBytes}; nothing partial is left behind. */
  async putFile(ctx: RequestContext, request: SignedFileRequest, body: StreamedRequestBody | undefined, contentType: string): Promise<void> {
    if (request.method !== 'PUT') throw permissionDenied('this URL is not an upload URL');
    this.urls.verify(request);
    const key = this.keyOf(request.resource, request.filename);
    const max = this.maxFileBytes;
    const bad = (why: string) => invalidArgument(`file ${JSON.stringify(request.filename)}: ${why}`, { field: 'filename' });
    if (body?.declaredLength !== undefined && body.declaredLength > max) throw bad(`${body.declaredLength} bytes is more than the ${max} allowed`);
    // A declared length is the exact size: a short body fails inside the stream, so nothing is committed.
    const declared = body?.declaredLength;
    const bounded = declared === undefined
      ? new ByteBound({ max, tooMany: () => bad(`more than the ${max} bytes allowed arrived`) })
      : new ByteBound({ max: declared, tooMany: () => bad(`more than the ${declared} bytes declared arrived`), tooFew: (received) => bad(`the upload ended after ${received} of ${declared} bytes`) });
    try {
      await this.blobs.putStream(ctx, key, bounded.pass(body?.chunks ?? noChunks()), contentType);
    } catch (error) {
      await this.blobs.delete(ctx, key);
      if (isGatewayError(error)) throw error;
      throw bad(`the upload failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A signed download: the stored bytes, streamed. NOT found files answer FAILED_PRECONDITION naming the file. */
  async getFile(ctx: RequestContext, request: SignedFileRequest): Promise<{ body: AsyncIterable<Uint8Array>; contentType: string; size: number }> {
    if (request.method !== 'GET') throw permissionDenied('this URL is not a download URL');
    this.urls.verify(request);
    const stream = await this.blobs.getStream(ctx, this.keyOf(request.resource, request.filename));
    if (!stream) throw failedPrecondition(`file ${JSON.stringify(request.filename)} of ${request.resource} is not stored`);
    return { body: stream.body, contentType: stream.contentType, size: stream.length };
  }
}

async function* noChunks(): AsyncIterable<Uint8Array> {}
