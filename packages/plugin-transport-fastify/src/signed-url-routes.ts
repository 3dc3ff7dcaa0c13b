import type { FastifyInstance } from 'fastify';
import type { RouteSpec } from './route-spec.js';
import { fastifyParams, routeRequestOf, sendAnswer } from './http-request.js';

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
  app.removeAllContentTypeParsers();
  // Each route's own `bodyLimit` (below) caps its body.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  for (const spec of options.routes) {
    app.route({
      method: spec.method,
      url: fastifyParams(spec.path),
      bodyLimit: spec.signedUrl?.maxBodyBytes ?? 0, // only specs with `signedUrl` are registered here
      handler: async (request, reply) => {
        const result = await spec.handle(routeRequestOf(spec, request, reply, request.params as Record<string, string>, undefined, options.mountPoint));
        return sendAnswer(reply, request.id, result);
      },
    });
  }
}
