import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BinaryAnswer, serializedViewOf, StreamAnswer, type Principal, type RequestContext } from '@berth/core';
import { parseQuery } from './query.js';
import type { QueryValues, RouteRequest, RouteSpec } from './route-spec.js';

/**
 * The context of one HTTP request. Its AbortSignal (aborted when the client goes away before the answer
 * is sent) is made on first use: most control-plane calls never read it. A class, not an object literal
 * with a getter: V8 builds literals with accessors through the runtime, which cost a third of the
 * control plane's throughput (measured, see BENCHMARKS.md).
 */
export class HttpRequestContext implements RequestContext {
  private controller: AbortController | undefined;

  constructor(
    readonly requestId: string,
    /** Undefined only on signed-URL routes, whose URL carries the credential. */
    readonly principal: Principal | undefined,
    private readonly reply: FastifyReply,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      const created = new AbortController();
      this.controller = created;
      // The response's 'close', not the request's: a request's 'close' fires as soon as its body is read.
      const res = this.reply.raw;
      if (res.destroyed && !res.writableFinished) created.abort();
      else res.once('close', () => {
        if (!res.writableFinished) created.abort();
      });
    }
    return this.controller.signal;
  }
}

/** What a route handler receives; `baseUrl` and `ifMatch` are computed only by the routes that read them. */
export class HttpRouteRequest implements RouteRequest {
  constructor(
    readonly ctx: RequestContext,
    readonly params: Readonly<Record<string, string>>,
    readonly query: QueryValues,
    private readonly request: FastifyRequest,
    /** Where the gateway is mounted (`''` or e.g. `/berth`). */
    private readonly prefix = '',
  ) {}

  get body(): unknown {
    return this.request.body;
  }

  get baseUrl(): string {
    return `${this.request.protocol}://${this.request.host}${this.prefix}`;
  }

  get ifMatch(): string | undefined {
    return ifMatchOf(this.request.headers['if-match']);
  }

  get contentType(): string | undefined {
    return this.request.headers['content-type'];
  }

  get accept(): string | undefined {
    return this.request.headers.accept;
  }

  get range(): string | undefined {
    return this.request.headers.range;
  }

  get ifRange(): string | undefined {
    const value = this.request.headers['if-range'];
    return Array.isArray(value) ? value[0] : value;
  }
}

/**
 * Sends a route's result: a {@link BinaryAnswer} as its bytes with its media type, headers and
 * `Content-Length`; a {@link StreamAnswer} streamed with its `Content-Length` (a failure midway cuts the
 * response); an immutable resource view as its JSON text made once per view ({@link serializedViewOf});
 * anything else as JSON.
 */
export function sendAnswer(reply: FastifyReply, requestId: string, result: unknown): FastifyReply {
  void reply.header('x-request-id', requestId);
  if (result instanceof StreamAnswer) {
    for (const [name, value] of Object.entries(result.headers)) void reply.header(name, value);
    void reply.header('content-length', String(result.length));
    return reply.code(result.status).type(result.contentType).send(Readable.from(result.body, { objectMode: false }));
  }
  if (!(result instanceof BinaryAnswer)) {
    const json = serializedViewOf(result);
    return json === undefined ? reply.send(result) : reply.type(jsonMediaType).send(json);
  }
  const { bytes, contentType, headers, status } = result;
  for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
  return reply.code(status).type(contentType).send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

const jsonMediaType = 'application/json; charset=utf-8';

/** The `If-Match` header's entity tag with its quotes (and a weak `W/` marker) stripped; `*` is kept. */
export function ifMatchOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '') return undefined;
  const tag = value.startsWith('W/') ? value.slice(2) : value;
  return tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"') ? tag.slice(1, -1) : tag;
}

const noQuery: QueryValues = Object.freeze({});

/**
 * What a declared route's handler gets for one request: its context (for `principal`, or none for a
 * signed URL), its path parameters, its query parsed by the spec, and `mountPoint` for URLs in answers.
 */
export function routeRequestOf(
  spec: RouteSpec,
  request: FastifyRequest,
  reply: FastifyReply,
  params: Readonly<Record<string, string>>,
  principal: Principal | undefined,
  mountPoint: string,
): HttpRouteRequest {
  const ctx = new HttpRequestContext(request.id, principal, reply);
  const query = spec.query === undefined ? noQuery : parseQuery(request.query as Record<string, unknown>, spec.query);
  return new HttpRouteRequest(ctx, params, query, request, mountPoint);
}

/** A declared path's parameters in Fastify's form: `{dataset_id}` → `:dataset_id`. */
export function fastifyParams(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}
