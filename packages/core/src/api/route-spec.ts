import type { JsonSchema } from '../validation/schema-validator.js';
import type { Permission } from '../auth/permissions.js';
import type { RequestContext } from '../kernel/request-context.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface QueryParamSpec {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'boolean';
  readonly description: string;
}

export type QueryValues = Readonly<Record<string, string | number | boolean | undefined>>;

export interface RouteRequest {
  readonly ctx: RequestContext;
  /** Path parameters by their OpenAPI names (`account_id`, `model_id`). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: QueryValues;
  readonly body: unknown;
  /** Origin of the request as the client sees it (`http://host:port`), for URLs the answer carries. */
  readonly baseUrl: string;
  /** `If-Match` (AIP-154 etag), quotes stripped, `*` kept. */ readonly ifMatch?: string | undefined;
  /** The body's media type (`Content-Type`), for routes that take bytes ({@link RouteSpec.signedUrl}). */
  readonly contentType?: string | undefined;
  /** The `Accept` header, for routes whose answer's form depends on it (text_to_image). */
  readonly accept?: string | undefined;
  /** The `Range` and `If-Range` headers, for routes that answer parts of a stored file (signed downloads). */
  readonly range?: string | undefined;
  readonly ifRange?: string | undefined;
}

/**
 * One operation of the HTTP API, as data: the transport registers it and the OpenAPI document is
 * generated from the same table, so the two cannot drift apart.
 */
export interface RouteSpec {
  readonly method: HttpMethod;
  /** OpenAPI path, e.g. `/v1/accounts/{account_id}/deployments/{deployment_id}:scale`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly query?: readonly QueryParamSpec[];
  readonly requestBody?: JsonSchema;
  readonly response: JsonSchema;
  /**
   * Names of the bodies among the OpenAPI document's components (`Model`, `ListModelsResponse`), so
   * generated clients get named types. Without one the document reuses the component of an identical
   * schema, else names it `<OperationId>Request` / `<OperationId>Response`.
   */
  readonly schemaNames?: { readonly requestBody?: string; readonly response?: string };
  /**
   * What the caller needs on the path's `{account_id}`, checked before the query and the body are
   * (a caller without it gets 403, never a 400 about its input). Routes with an `{account_id}` and no
   * permission still get the account check.
   */
  readonly permission?: Permission;
  /**
   * Set on a URL the API hands out with its own credential (the signed dataset file URLs), which is not
   * part of the bearer-authenticated JSON API: no bearer key is asked for and no permission checked (the
   * handler runs with a context without principal and must verify the URL's signature itself), the body
   * is taken as bytes of any media type (`request.body` is a `Uint8Array`, `request.contentType` its type)
   * up to `maxBodyBytes`, and the route is left out of the
   * OpenAPI document. With `streamed`, the body is not buffered: `request.body` is a
   * {@link StreamedRequestBody} the handler reads (and bounds) itself, and `maxBodyBytes` is not applied.
   */
  readonly signedUrl?: { readonly maxBodyBytes: number; readonly streamed?: boolean };
  /**
   * Set on a route that takes one file as `multipart/form-data` (the dataset `:upload`): the body is not
   * buffered; `request.body` is a {@link MultipartFileBody} whose file part streams its bytes. Any other
   * media type is refused with 400, a file over `maxFileBytes` with 413.
   */
  readonly multipartFile?: MultipartFileSpec;
  /** Media types the route may answer as bytes ({@link BinaryAnswer}) besides JSON, for the OpenAPI document. */
  readonly binaryMediaTypes?: readonly string[];
  handle(request: RouteRequest): Promise<unknown>;
}

/** The one file part a {@link RouteSpec.multipartFile} route takes. */
export interface MultipartFileSpec {
  /** Name of the form field holding the file (`file`). */
  readonly field: string;
  /** Largest file accepted, in bytes; larger answers 413 (INVALID_ARGUMENT, reason `BODY_TOO_LARGE`). */
  readonly maxFileBytes: number;
}

/** A file part of a multipart body, streamed as it arrives. */
export interface StreamedFile {
  /** The part's file name as the client sent it (may be empty). */
  readonly filename: string;
  readonly contentType: string;
  /** The bytes; the iteration fails with INVALID_ARGUMENT (reason `BODY_TOO_LARGE`) past `maxFileBytes`. */
  readonly chunks: AsyncIterable<Uint8Array>;
}

/** The body of a {@link RouteSpec.multipartFile} route, read as the handler consumes it. */
export interface MultipartFileBody {
  /** The file part in the route's field; INVALID_ARGUMENT when the body holds no file or one in another field. */
  file(): Promise<StreamedFile>;
  /** Resolves once the rest of the body is read; INVALID_ARGUMENT when it held a second file. Call after the file's chunks. */
  end(): Promise<void>;
}

/** True for the body the transport hands a {@link RouteSpec.multipartFile} route for a multipart request. */
export function isMultipartFileBody(body: unknown): body is MultipartFileBody {
  const candidate = body as Partial<MultipartFileBody> | null | undefined;
  return typeof candidate?.file === 'function' && typeof candidate.end === 'function';
}

/** The body of a streamed {@link RouteSpec.signedUrl} route, read as the handler consumes it. */
export interface StreamedRequestBody {
  /** The request's `Content-Length`, when it sent one. */
  readonly declaredLength: number | undefined;
  /**
   * The bytes as they arrive (backpressure reaches the client). The iteration fails when the client goes
   * away before the end. A handler that stops early leaves the rest unread: the transport closes the
   * connection after answering instead of reading it.
   */
  readonly chunks: AsyncIterable<Uint8Array>;
}

/** True for the body the transport hands a streamed signed-URL route. */
export function isStreamedRequestBody(body: unknown): body is StreamedRequestBody {
  const candidate = body as Partial<StreamedRequestBody> | null | undefined;
  return typeof candidate === 'object' && candidate !== null && typeof (candidate.chunks as AsyncIterable<Uint8Array> | undefined)?.[Symbol.asyncIterator] === 'function';
}

/**
 * An answer sent as a stream of bytes with its media type and `Content-Length` (a stored file), never
 * held whole. When the iteration fails midway the transport cuts the response (the client sees a
 * truncated body, not a complete one).
 */
export class StreamAnswer {
  constructor(
    readonly body: AsyncIterable<Uint8Array>,
    readonly contentType: string,
    readonly length: number,
    readonly headers: Readonly<Record<string, string>> = {},
    /** The HTTP status: 200, or 206 for a part of a file (with `Content-Range` in `headers`). */
    readonly status = 200,
  ) {}
}

/**
 * An answer sent as bytes with its media type (and `Content-Length`) instead of JSON, with optional
 * extra response headers (text_to_image's `Seed` and `Finish-Reason`). Any route may answer one.
 */
export class BinaryAnswer {
  constructor(
    readonly bytes: Uint8Array,
    readonly contentType: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** The HTTP status: 200 unless the answer says otherwise (416 for a range past the end of a file). */
    readonly status = 200,
  ) {}
}

export const readMaskParam: QueryParamSpec = {
  name: 'readMask',
  type: 'string',
  description: 'Comma-separated fields to return; empty or "*" returns all fields.',
};

export const listParams: readonly QueryParamSpec[] = [
  { name: 'pageSize', type: 'integer', description: 'Maximum items per page: default 50, values above 200 are coerced to 200.' },
  { name: 'pageToken', type: 'string', description: 'Token from a previous list call; all other parameters must be unchanged.' },
  { name: 'filter', type: 'string', description: 'AIP-160 filter, e.g. `state = READY AND create_time > "2026-01-01T00:00:00Z"`.' },
  { name: 'orderBy', type: 'string', description: 'Comma-separated fields, each optionally followed by " desc"; default create_time.' },
  readMaskParam,
];
