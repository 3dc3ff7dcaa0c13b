import { blobEntityTag, chooseRange, contentRange, ifRangeHolds } from '../blobs/http-range.js';
import type { GatewayError } from '../errors/index.js';
import { aborted, Code, codeNumberOf } from '../errors/index.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { BlobMetadata, BlobStore } from '../ports/storage.js';
import { BinaryAnswer, StreamAnswer } from './route-spec.js';

/** The request headers a download answers to. */
export interface DownloadRequest {
  readonly range?: string | undefined;
  readonly ifRange?: string | undefined;
}

export interface BlobDownloadOptions {
  /** The error when the key holds no object (the file is not stored). */
  readonly notStored: () => GatewayError;
  /** Headers added to every answer from the object's metadata (a dataset download's `x-berth-sha256`). */
  readonly headers?: (metadata: BlobMetadata) => Record<string, string>;
}

/**
 * Answers a stored object as a signed download URL does, streamed from the store: the whole object (200),
 * or the one range a `Range` header asks (206 with `Content-Range`; `http-range.ts` says which headers are
 * served as a part), or 416 (with a `Content-Range` of `bytes *` over the size) for a range past the end. Every answer
 * carries `Accept-Ranges: bytes` and, when the store recorded a digest, `ETag` (the quoted SHA-256), which
 * `If-Range` is compared with: a range under an `If-Range` naming another version answers the whole object.
 */
export async function blobDownloadAnswer(
  ctx: RequestContext,
  blobs: BlobStore,
  key: string,
  request: DownloadRequest,
  options: BlobDownloadOptions,
): Promise<StreamAnswer | BinaryAnswer> {
  const headers = (metadata: BlobMetadata) => ({
    'accept-ranges': 'bytes',
    ...(blobEntityTag(metadata.sha256) ? { etag: blobEntityTag(metadata.sha256)! } : {}),
    ...options.headers?.(metadata),
  });
  if (request.range === undefined) {
    // The whole object (If-Range only qualifies a Range): one read of the store, its metadata with the bytes.
    const whole = await blobs.getStream(ctx, key);
    if (!whole) throw options.notStored();
    return new StreamAnswer(whole.body, whole.contentType, whole.length, headers(whole));
  }
  const head = await blobs.head(ctx, key);
  if (!head) throw options.notStored();
  const entityTag = blobEntityTag(head.sha256);
  const choice = ifRangeHolds(request.ifRange, entityTag) ? chooseRange(request.range, head.size) : { kind: 'whole' as const };
  if (choice.kind === 'unsatisfiable') {
    const body = { code: codeNumberOf(Code.OUT_OF_RANGE), message: `the range ${JSON.stringify(request.range)} starts past the end of the ${head.size}-byte file`, details: [] };
    return new BinaryAnswer(new TextEncoder().encode(JSON.stringify(body)), 'application/json; charset=utf-8', { ...headers(head), 'content-range': `bytes */${head.size}` }, 416);
  }
  const stream = await blobs.getStream(ctx, key, choice.kind === 'part' ? { offset: choice.offset, length: choice.length } : undefined);
  if (!stream) throw options.notStored();
  if (choice.kind === 'whole') return new StreamAnswer(stream.body, stream.contentType, stream.length, headers(stream));
  if (stream.sha256 !== head.sha256 || stream.size !== head.size) {
    // Replaced between the two reads: the range was resolved against another version.
    await stream.body[Symbol.asyncIterator]().return?.();
    throw aborted('the file was replaced while it was read; retry the download');
  }
  return new StreamAnswer(stream.body, stream.contentType, stream.length, {
    ...headers(stream), 'content-range': contentRange(stream.offset, stream.length, stream.size),
  }, 206);
}
