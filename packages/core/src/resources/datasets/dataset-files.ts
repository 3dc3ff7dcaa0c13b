import { failedPrecondition, invalidArgument, notFound, permissionDenied } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { assertEmptyBody, compileValidator } from '../../validation/schema-validator.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import type { GatewaySecrets } from '../common/secrets.js';
import { SignedFileUrls, type SignedFileRequest, type SignedMethod } from '../common/signed-file-urls.js';
import { deleteUploadPlan, mergeUploadPlan, readUploadPlan } from '../common/upload-plans.js';
import { blobDownloadAnswer, type DownloadRequest } from '../../api/blob-download.js';
import { ByteBound } from '../../blobs/byte-bound.js';
import type { BinaryAnswer, MultipartFileBody, StreamAnswer, StreamedRequestBody } from '../../api/route-spec.js';
import { JsonlRowChecker, malformedRowSampleLimit, type JsonlRowCount } from './dataset-rows.js';
import type { Dataset } from './dataset-schema.js';
import type { DatasetService } from './dataset-service.js';

/** A file name inside a dataset: no paths, 1–255 characters. */
const fileNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

const validateUploadRequest = compileValidator(
  {
    type: 'object',
    properties: {
      filenameToSize: {
        type: 'object',
        additionalProperties: { anyOf: [{ type: 'string', pattern: '^[0-9]{1,15}$' }, { type: 'integer', minimum: 0 }] },
      },
    },
    required: ['filenameToSize'],
  },
  'request body',
);

export interface DatasetFileOptions {
  /** Largest file accepted, in bytes. Default 256 MiB. */
  readonly maxFileBytes?: number;
  /** How long a signed URL is valid. Default 1 hour. */
  readonly urlTtlMs?: number;
}

export type { SignedFileRequest, SignedMethod };

/**
 * The dataset upload flow of the reference API, served by the gateway itself:
 * `:getUploadEndpoint` announces files and answers signed upload URLs (PUT the bytes there, no bearer
 * key: the signature is the credential); `:validateUpload` checks every announced file arrived with its
 * size, checks JSONL rows against the dataset format, counts examples and marks the dataset READY;
 * `:getDownloadEndpoint` answers signed download URLs. Files live in the blob store under
 * `datasets/{account}/{dataset}/`. URLs are relative; the transport prefixes the request's origin.
 */
export class DatasetFileService {
  /** Largest file accepted, in bytes. */
  readonly maxFileBytes: number;
  private readonly urls: SignedFileUrls;

  constructor(
    private readonly env: ResourceEnvironment,
    secrets: GatewaySecrets,
    private readonly datasets: DatasetService,
    options: DatasetFileOptions = {},
  ) {
    this.maxFileBytes = options.maxFileBytes ?? 256 * 1024 * 1024;
    this.urls = new SignedFileUrls(secrets, env.clock, 'berth:dataset-files', options.urlTtlMs ?? 3600_000);
  }

  private signedUrl(dataset: string, filename: string, method: SignedMethod): string {
    return this.urls.url(dataset, filename, method);
  }

  /** Checks a signed URL. PERMISSION_DENIED for a wrong, forged or expired signature. */
  private verify(request: SignedFileRequest): void {
    this.urls.verify(request);
  }

  private blobKey(dataset: string, filename: string): string {
    return `${datasetFilesPrefix(dataset)}${filename}`;
  }

  private async requireState(ctx: RequestContext, dataset: string, state: 'UPLOADING' | 'READY'): Promise<Dataset> {
    return requireDatasetState(dataset, (await this.datasets.resources.getStored(ctx, dataset)).data, state);
  }

  async getUploadEndpoint(ctx: RequestContext, dataset: string, body: unknown): Promise<{ filenameToSignedUrls: Record<string, string> }> {
    this.datasets.resources.authorizeName(ctx, dataset, 'update');
    validateUploadRequest(body ?? {});
    const requested = (body as { filenameToSize: Record<string, string | number> }).filenameToSize;
    const names = Object.keys(requested);
    if (names.length === 0 || names.length > 100) throw invalidArgument('filenameToSize must name 1 to 100 files', { field: 'filenameToSize' });
    const files: Record<string, number> = {};
    for (const name of names) {
      if (!fileNamePattern.test(name)) throw invalidArgument(`file name "${name.slice(0, 80)}" must be 1–255 letters, digits, ".", "_" or "-"`, { field: 'filenameToSize' });
      const size = Number(requested[name]);
      if (size < 1 || size > this.maxFileBytes) throw invalidArgument(`file ${name}: size must be 1 to ${this.maxFileBytes} bytes`, { field: 'filenameToSize' });
      files[name] = size;
    }
    // The plan changes in the dataset's transaction, under its row lock: concurrent announcements of one
    // dataset run one after another and each merges what the previous ones wrote.
    await this.datasets.resources.mutate(ctx, dataset, async (data, txCtx) => {
      requireDatasetState(dataset, data, 'UPLOADING');
      await mergeUploadPlan(txCtx, this.env.storage.resources, dataset, files);
      return data;
    });
    return { filenameToSignedUrls: Object.fromEntries(names.map((n) => [n, this.signedUrl(dataset, n, 'PUT')])) };
  }

  /**
   * Stores an uploaded file (signed PUT), streamed to the blob store: the bytes must be exactly the
   * announced size (a declared `Content-Length` is checked before a byte is read, the stream is cut at the
   * first byte past it, a short body is refused at its end). A refused or broken upload leaves the file as
   * it was before (the port never keeps a partial write).
   */
  async putFile(ctx: RequestContext, request: SignedFileRequest, upload: StreamedRequestBody, contentType: string): Promise<void> {
    if (request.method !== 'PUT') throw permissionDenied('this URL is not an upload URL');
    this.verify(request);
    const plan = await readUploadPlan(ctx, this.env.storage.resources, request.resource);
    const size = plan?.files[request.filename];
    if (size === undefined) throw notFound(`${request.resource}/files/${request.filename}`);
    const wrongSize = (got: number) => invalidArgument(`file ${request.filename} has ${got} bytes; ${size} were announced`);
    if (upload.declaredLength !== undefined && upload.declaredLength !== size) throw wrongSize(upload.declaredLength);
    await this.requireState(ctx, request.resource, 'UPLOADING');
    const exact = new ByteBound({ max: size, tooMany: wrongSize, tooFew: wrongSize });
    await this.env.storage.blobs.putStream(ctx, this.blobKey(request.resource, request.filename), exact.pass(upload.chunks), contentType);
  }

  /**
   * Serves a file (signed GET) as a stream from the blob store, whole or the one byte range the request's
   * `Range` asks (`blobDownloadAnswer`), with its checksum as `x-berth-sha256`.
   */
  async downloadFile(ctx: RequestContext, request: SignedFileRequest, download: DownloadRequest = {}): Promise<StreamAnswer | BinaryAnswer> {
    if (request.method !== 'GET') throw permissionDenied('this URL is not a download URL');
    this.verify(request);
    return blobDownloadAnswer(ctx, this.env.storage.blobs, this.blobKey(request.resource, request.filename), download, {
      notStored: () => notFound(`${request.resource}/files/${request.filename}`),
      // The digest lets a client check what it got.
      headers: (metadata) => ({ 'x-berth-sha256': metadata.sha256 }),
    });
  }

  /**
   * Checks the upload and marks the dataset READY with its exampleCount: every announced file must have
   * arrived; `.jsonl` files are checked by {@link JsonlRowChecker} (training rows with `messages` (CHAT,
   * RL) or `prompt` (COMPLETION); batch rows `{custom_id, body}`, whose malformed rows are recorded in
   * `validationDetails`). FAILED_PRECONDITION for missing files; INVALID_ARGUMENT naming file and line for bad rows.
   */
  async validateUpload(ctx: RequestContext, dataset: string, body: unknown): Promise<Record<string, never>> {
    this.datasets.resources.authorizeName(ctx, dataset, 'update');
    assertEmptyBody(body);
    const data = await this.requireState(ctx, dataset, 'UPLOADING');
    const plan = await readUploadPlan(ctx, this.env.storage.resources, dataset);
    const files = Object.entries(plan?.files ?? {});
    if (files.length === 0) throw failedPrecondition(`dataset ${dataset} has no announced files: call :getUploadEndpoint first`);
    const counts: JsonlRowCount[] = [];
    for (const [filename, size] of files) {
      const checker = rowCheckerOf(filename, data);
      const key = this.blobKey(dataset, filename);
      const missing = () => failedPrecondition(`file ${filename} of dataset ${dataset} has not been uploaded`);
      if (!checker) {
        if ((await this.env.storage.blobs.head(ctx, key))?.size !== size) throw missing();
        continue;
      }
      const blob = await this.env.storage.blobs.getStream(ctx, key);
      if (!blob || blob.size !== size) throw missing();
      // Rows are checked as the file streams past, one line in memory at a time.
      for await (const chunk of blob.body) checker.push(chunk);
      counts.push(checker.end());
    }
    await this.finishUpload(ctx, dataset, counts);
    return {};
  }

  /**
   * `:upload`: takes one file from a multipart body and streams it to the blob store (checking JSONL rows
   * as they pass, one line in memory at a time), then finishes the upload as `:validateUpload` does: the
   * dataset becomes READY with its exampleCount. The file keeps its base name (1–255 letters, digits,
   * ".", "_" or "-"). Any failure (bad rows of a training file, the size cap, a second file) deletes what
   * was stored and leaves the dataset UPLOADING. Answers `{filenameToSize}` with the stored size.
   */
  async uploadFile(ctx: RequestContext, dataset: string, body: MultipartFileBody): Promise<{ filenameToSize: Record<string, string> }> {
    this.datasets.resources.authorizeName(ctx, dataset, 'update');
    const data = await this.requireState(ctx, dataset, 'UPLOADING');
    const file = await body.file();
    const filename = file.filename.split(/[\\/]/).pop() ?? '';
    if (!fileNamePattern.test(filename)) {
      throw invalidArgument(`the file part's file name "${filename.slice(0, 80)}" must be 1–255 letters, digits, ".", "_" or "-"`, { field: 'file' });
    }
    const key = this.blobKey(dataset, filename);
    const checker = rowCheckerOf(filename, data);
    const checked = async function* (chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
      for await (const chunk of chunks) {
        checker?.push(chunk);
        yield chunk;
      }
    };
    try {
      const size = await this.env.storage.blobs.putStream(ctx, key, checked(file.chunks), file.contentType || 'application/octet-stream');
      await body.end();
      if (size === 0) throw invalidArgument(`file ${filename} is empty`, { field: 'file' });
      await this.finishUpload(ctx, dataset, checker ? [checker.end()] : []);
      return { filenameToSize: { [filename]: String(size) } };
    } catch (error) {
      await this.env.storage.blobs.delete(ctx, key);
      throw error;
    }
  }

  /** Marks the dataset READY with what the checked files hold and forgets the announced files. */
  private async finishUpload(ctx: RequestContext, dataset: string, counts: readonly JsonlRowCount[]): Promise<void> {
    const sum = (pick: (count: JsonlRowCount) => number) => counts.reduce((total, count) => total + pick(count), 0);
    await this.datasets.markReady(ctx, dataset, {
      exampleCount: sum((c) => c.rows),
      estimatedTokenCount: Math.ceil(sum((c) => c.characters) / 4),
      malformedRowCount: sum((c) => c.malformedRows),
      malformedRows: counts.flatMap((c) => c.malformedSamples).slice(0, malformedRowSampleLimit),
    });
    await deleteUploadPlan(ctx, this.env.storage.resources, dataset);
  }

  async getDownloadEndpoint(ctx: RequestContext, dataset: string, body: unknown): Promise<{ filenameToSignedUrls: Record<string, string> }> {
    this.datasets.resources.authorizeName(ctx, dataset, 'get');
    assertEmptyBody(body);
    await this.requireState(ctx, dataset, 'READY');
    const prefix = this.blobKey(dataset, '');
    const keys = await this.env.storage.blobs.list(ctx, prefix);
    return { filenameToSignedUrls: Object.fromEntries(keys.map((k) => [k.slice(prefix.length), this.signedUrl(dataset, k.slice(prefix.length), 'GET')])) };
  }
}

/** `datasets/<account>/<datasetId>/`: the prefix every file of the dataset is stored under. */
export function datasetFilesPrefix(dataset: string): string {
  return `datasets/${dataset.slice('accounts/'.length)}/`;
}

/** The dataset, when it is in `state`; FAILED_PRECONDITION (DATASET_STATE) otherwise. */
function requireDatasetState(name: string, data: Dataset, state: 'UPLOADING' | 'READY'): Dataset {
  if (data.state !== state) throw failedPrecondition(`dataset ${name} is ${data.state}; this needs it ${state}`, { reason: 'DATASET_STATE' });
  return data;
}

/** The row checker of a dataset file: `.jsonl` files are checked, other files are kept as they are. */
function rowCheckerOf(filename: string, data: Dataset): JsonlRowChecker | undefined {
  return filename.endsWith('.jsonl') ? new JsonlRowChecker(filename, data.format ?? 'FORMAT_UNSPECIFIED') : undefined;
}
