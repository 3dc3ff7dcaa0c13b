import type { FastifyInstance } from 'fastify';
import { BinaryAnswer } from '@berth/core';
import { parseQuery } from './query.js';
import type { QueryValues, RouteSpec } from './route-spec.js';
import { HttpRequestContext, HttpRouteRequest } from './http-request.js';

const noQuery: QueryValues = Object.freeze({});

export interface SignedUrlRoutesOptions {
  readonly routes: readonly RouteSpec[];
  /** Where Berth is mounted (`''` or e.g. `/berth`), for the URLs answers carry; not `prefix`, which Fastify would apply again. */
  readonly mountPoint: string;
}

/**
 * The routes declared with `signedUrl` (URLs the API hands out with their own credential, such as the
 * signed dataset file URLs), in their own encapsulated context: no bearer key and no permission check
 * (the handler verifies the URL's signature and runs with a context without principal), any body taken
 * as bytes up to the route's `maxBodyBytes`, and a {@link BinaryAnswer} sent as bytes with its type.
 */
export async function registerSignedUrlRoutes(app: FastifyInstance, options: SignedUrlRoutesOptions): Promise<void> {
  const maxBodyBytes = Math.max(...options.routes.map((spec) => spec.signedUrl?.maxBodyBytes ?? 1));
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBodyBytes }, (_request, body, done) => done(null, body));
  for (const spec of options.routes) {
    app.route({
      method: spec.method,
      url: spec.path.replace(/\{([a-z_]+)\}/g, ':$1'),
      ...(spec.signedUrl ? { bodyLimit: spec.signedUrl.maxBodyBytes } : {}),
      handler: async (request, reply) => {
        const ctx = new HttpRequestContext(request.id, undefined, reply);
        const query = spec.query === undefined ? noQuery : parseQuery(request.query as Record<string, unknown>, spec.query);
        const result = await spec.handle(new HttpRouteRequest(ctx, request.params as Record<string, string>, query, request, options.mountPoint));
        void reply.header('x-request-id', request.id);
        if (!(result instanceof BinaryAnswer)) return reply.send(result);
        const { bytes, contentType } = result;
        return reply.type(contentType).send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      },
    });
  }
}
