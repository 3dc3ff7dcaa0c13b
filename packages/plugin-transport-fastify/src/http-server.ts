import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  authenticatorToken, configToken, coreServicesToken, apiKeyManagerToken, invalidArgument, assertJsonDepth, storageToken,
  unauthenticated, notFound, systemContext, servingDirectoryToken, type Gateway, type GatewayLogger, type Principal,
} from '@berth/core';
import { renderError, surfaceOf, toRequestError } from './errors.js';
import { parseQuery } from './query.js';
import type { QueryValues, RouteSpec } from './route-spec.js';
import { HttpRequestContext, HttpRouteRequest } from './http-request.js';
import { controlPlaneRoutes } from './routes/control-plane-routes.js';
import { apiKeyRoutes } from './routes/api-key-routes.js';
import { datasetFileRoutes, registerSignedFileRoutes } from './routes/dataset-file-routes.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { renderDocsPage } from './openapi/docs-page.js';
import { inferenceRouteSpecs, registerInferenceRoutes, type InferenceRouteOptions } from './inference/inference-routes.js';

export interface HttpServerOptions {
  readonly gateway: Gateway;
  /** Extra routes from other plugins (inference, images). */
  readonly extraRoutes?: readonly RouteSpec[];
  /** Largest accepted request body in bytes. Default 10 MiB. */
  readonly bodyLimit?: number;
  readonly logger?: GatewayLogger;
  /** Timeouts and pool of the inference proxy (used when a ServingDirectory is bound). */
  readonly inference?: InferenceRouteOptions;
}

const noQuery: QueryValues = Object.freeze({});
const requestIdPattern = /^[A-Za-z0-9._-]{1,128}$/;

/** Request ids: a random per-process prefix and a counter — unique across instances, and cheap. */
function requestIdGenerator(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let counter = 0;
  return () => {
    counter += 1;
    return `${prefix}-${counter.toString(36)}`;
  };
}

/** Splits `/v1/.../{id}:action` into the Fastify path of its base route and the action. */
function fastifyPathOf(path: string): { route: string; action: string | undefined } {
  const match = /^(.*\})(?::([A-Za-z]+))$/.exec(path);
  const base = match ? match[1]! : path;
  return { route: base.replace(/\{([a-z_]+)\}/g, ':$1'), action: match ? match[2] : undefined };
}

const bearerPattern = /^Bearer\s+\S+\s*$/i;

/** Hands a failure to the error handler (`reply.send` of a non-Error would answer it as a body). */
function fail(reply: FastifyReply, error: unknown): void {
  reply.send(error instanceof Error ? error : new Error(String(error)));
}

/** The credential of `Authorization: Bearer <credential>` (checked with `test` and sliced: no match array per request). */
function bearerToken(header: string | undefined): string | undefined {
  if (!header || !bearerPattern.test(header)) return undefined;
  return header.slice(6).trim();
}

/** All routes the gateway serves over HTTP. */
export function gatewayRoutes(gateway: Gateway, extra: readonly RouteSpec[] = []): RouteSpec[] {
  const routes = controlPlaneRoutes(gateway.resolve(coreServicesToken));
  if (gateway.isBound(apiKeyManagerToken)) routes.push(...apiKeyRoutes(gateway.resolve(apiKeyManagerToken)));
  routes.push(...datasetFileRoutes(gateway.resolve(coreServicesToken).datasetFiles));
  return [...routes, ...extra];
}

/**
 * Builds the Fastify app for a started gateway: every route of the table, bearer auth, request ids,
 * strict JSON, errors in each surface's format, `/openapi.json`, `/docs`, `/healthz`, `/readyz`.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const { gateway } = options;
  const logger = options.logger ?? gateway.logger;
  const config = gateway.resolve(configToken);
  const authenticator = gateway.resolve(authenticatorToken);
  const routes = gatewayRoutes(gateway, options.extraRoutes);
  const nextRequestId = requestIdGenerator();
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? 10 * 1024 * 1024,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && requestIdPattern.test(given) ? given : nextRequestId();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 512 },
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    const body = String(text);
    if (body.trim() === '') return done(null, undefined);
    try {
      const parsed: unknown = JSON.parse(body);
      assertJsonDepth(parsed, config.maxJsonDepth);
      done(null, parsed);
    } catch (error) {
      done(error instanceof SyntaxError ? invalidArgument(`request body is not valid JSON: ${error.message}`, { reason: 'INVALID_JSON' }) : (error as Error), undefined);
    }
  });
  // Any other media type is refused with 400 INVALID_ARGUMENT (the signed file routes accept bytes in their own context).
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => {
    done(invalidArgument('Content-Type must be application/json', { reason: 'UNSUPPORTED_MEDIA_TYPE' }), undefined);
  });

  app.setErrorHandler((error, request, reply) => {
    const gatewayError = toRequestError(error, logger, request.id);
    const { status, body } = renderError(gatewayError, surfaceOf(request.url));
    void reply.code(status).header('x-request-id', request.id).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const { status, body } = renderError(notFound(`${request.method} ${request.url.split('?')[0]}`), surfaceOf(request.url));
    void reply.code(status).header('x-request-id', request.id).send(body);
  });

  /** The caller's principal: synchronously when the authenticator knows the key without I/O (no promise per request). */
  const principalOf = (request: FastifyRequest): Principal | Promise<Principal> => {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw unauthenticated('missing bearer credential: send Authorization: Bearer <API key>');
    const known = authenticator.authenticateCached?.(token);
    if (known !== undefined) return known;
    return authenticator.authenticate({ requestId: request.id }, token).then((principal) => {
      if (!principal) throw unauthenticated('invalid or expired API key');
      return principal;
    });
  };
  const authenticate = async (request: FastifyRequest): Promise<Principal> => principalOf(request);

  const grouped = new Map<string, { method: RouteSpec['method']; route: string; byAction: Map<string | undefined, RouteSpec> }>();
  for (const spec of routes) {
    const { route, action } = fastifyPathOf(spec.path);
    const key = `${spec.method} ${route}`;
    const group = grouped.get(key) ?? { method: spec.method, route, byAction: new Map() };
    group.byAction.set(action, spec);
    grouped.set(key, group);
  }

  for (const group of grouped.values()) {
    const lastParam = /:([a-z_]+)$/.exec(group.route)?.[1];
    const plain = group.byAction.get(undefined);
    /** Runs the operation once the caller is known; answers, or hands any failure to the error handler. */
    const serve = (request: FastifyRequest, reply: FastifyReply, spec: RouteSpec, params: Record<string, string>, principal: Principal): void => {
      try {
        const ctx = new HttpRequestContext(request.id, principal, reply);
        const query = spec.query === undefined ? noQuery : parseQuery(request.query as Record<string, unknown>, spec.query);
        spec.handle(new HttpRouteRequest(ctx, params, query, request)).then(
          (result) => reply.header('x-request-id', request.id).send(result),
          (error: unknown) => fail(reply, error),
        );
      } catch (error) {
        fail(reply, error);
      }
    };
    // Answers are serialized with JSON.stringify (Fastify's default without a response schema): on these
    // bodies it is as fast as a schema-compiled serializer or faster (BENCHMARKS.md), and it cannot drop a field.
    app.route({
      method: group.method,
      url: group.route,
      // A callback-style handler (it answers through `reply`, errors included): no async frame and no
      // promise for Fastify to wrap, and no promise at all for the caller's identity when the
      // authenticator knows the key. Every failure still reaches the error handler.
      handler: (request: FastifyRequest, reply: FastifyReply) => {
        try {
          let params = request.params as Record<string, string>;
          let spec = plain;
          if (lastParam !== undefined) {
            const last = params[lastParam];
            // `{id}:verb` is a custom method; an unknown verb is 404 like an unknown path.
            if (last !== undefined && last.includes(':')) {
              const [id, verb] = last.split(':', 2) as [string, string];
              params = { ...params, [lastParam]: id };
              spec = group.byAction.get(verb);
            }
          }
          if (!spec) throw notFound(`${request.method} ${request.url.split('?')[0]}`);
          const known = principalOf(request);
          if (known instanceof Promise) known.then((principal) => serve(request, reply, spec, params, principal), (error: unknown) => fail(reply, error));
          else serve(request, reply, spec, params, known);
        } catch (error) {
          fail(reply, error);
        }
      },
    });
  }

  // Inference routes stream, so they are registered directly (same auth and error handler) and only documented via RouteSpecs.
  const inferenceDocs = gateway.isBound(servingDirectoryToken) ? inferenceRouteSpecs() : [];
  if (inferenceDocs.length > 0) registerInferenceRoutes(app, { gateway, authenticate, logger, ...(options.inference ? { options: options.inference } : {}) });

  void app.register(registerSignedFileRoutes, { files: gateway.resolve(coreServicesToken).datasetFiles });

  const openApi = buildOpenApiDocument([...routes, ...inferenceDocs]);
  app.get('/openapi.json', async () => openApi);
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(renderDocsPage(openApi)));
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    if (gateway.state !== 'running') return reply.code(503).send({ status: 'not ready', gateway: gateway.state });
    try {
      await gateway.resolve(storageToken).kv.get(systemContext('readyz'), 'berth:readyz');
      return { status: 'ready' };
    } catch (error) {
      logger.warn({ requestId: request.id, err: String(error) }, 'readiness check failed');
      return reply.code(503).send({ status: 'not ready', storage: 'unreachable' });
    }
  });
  return app;
}
