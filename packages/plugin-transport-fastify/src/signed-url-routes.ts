import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { StreamedRequestBody } from '@berth/core';
import type { RouteSpec } from './route-spec.js';
import { fastifyParams, routeRequestOf, sendAnswer } from './http-request.js';
import { flowingChunks } from './streamed-body.js';

export interface SignedUrlRoutesOptions {
  readonly routes: readonly RouteSpec[];
  /** Where Berth is mounted (`''` or e.g. `/berth`), for the URLs answers carry; not `prefix`, which Fastify would apply again. */
  readonly mountPoint: string;
}

/** The request's `Content-Length` as a number, when it sent a valid one. */
function declaredLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  if (header === undefined || !/^[0-9]{1,16}$/.test(header)) return undefined;
  return Number(header);
}

/** Registers the routes of one body handling (buffered or streamed) in the current context. */
function registerRoutes(app: FastifyInstance, routes: readonly RouteSpec[], mountPoint: string): void {
  for (const spec of routes) {
    const streamed = spec.signedUrl?.streamed === true;
    app.route({
      method: spec.method,
      url: fastifyParams(spec.path),
      // Each buffered route's own `bodyLimit` caps its body; a streamed route's handler bounds what it reads.
      ...(streamed ? {} : { bodyLimit: spec.signedUrl?.maxBodyBytes ?? 0 }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const route = routeRequestOf(spec, request, reply, request.params as Record<string, string>, undefined, mountPoint);
        const payload = streamed ? (request.body as { readonly stream?: Readable } | undefined)?.stream : undefined;
        try {
          return sendAnswer(reply, request.id, await spec.handle(route));
        } finally {
          // A handler that stopped reading (a refused upload): close instead of reading the rest.
          if (payload && !payload.readableEnded) void reply.header('connection', 'close');
        }
      },
    });
  }
}

/**
 * The routes declared with `signedUrl` (URLs the API hands out with their own credential, such as the
 * signed dataset and model file URLs), in their own encapsulated contexts: no bearer key and no
 * permission check (the handler verifies the URL's signature and runs with a context without
 * principal), any body taken as bytes (buffered up to the route's `maxBodyBytes`, or handed to the
 * handler unread as a {@link StreamedRequestBody} for `streamed` routes), and a `BinaryAnswer` or
 * `StreamAnswer` sent as bytes with its type.
 */
export async function registerSignedUrlRoutes(app: FastifyInstance, options: SignedUrlRoutesOptions): Promise<void> {
  const buffered = options.routes.filter((spec) => spec.signedUrl?.streamed !== true);
  const streamed = options.routes.filter((spec) => spec.signedUrl?.streamed === true);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    registerRoutes(scope, buffered, options.mountPoint);
  });
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // The payload stream itself, unread: the route handler consumes it, in flowing mode with a bounded
    // queue (`flowingChunks`: the socket keeps reading while the handler hashes and writes a chunk).
    scope.addContentTypeParser('*', (request, payload, done) => {
      const body: StreamedRequestBody & { readonly stream: Readable } = { declaredLength: declaredLength(request), chunks: flowingChunks(payload), stream: payload };
      done(null, body);
    });
    registerRoutes(scope, streamed, options.mountPoint);
  });
}
