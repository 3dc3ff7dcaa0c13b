import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import {
  authenticatorToken, authorize, authorizeAccount, configToken, invalidArgument, notFound, resourceRoutesToken,
  servingDirectoryToken, telemetryToken, tracingEnabled, metricsEndpointToken, type Gateway, type GatewayLogger, type Principal,
} from '@berth/core';
import { renderError, surfaceOf, toRequestError } from './errors.js';
import type { RouteSpec } from './route-spec.js';
import { fastifyParams, routeRequestOf, sendAnswer } from './http-request.js';
import { bearerAuthentication } from './authentication.js';
import { defaultJsonBodyLimits, parseJsonBody, type JsonBodyLimits } from './json-body.js';
import { BusboyFileBody } from './multipart-file-body.js';
import { registerSignedUrlRoutes } from './signed-url-routes.js';
import { observeResponses, serveMetrics } from './request-telemetry.js';
import { readiness } from './readiness.js';
import { traceRequests } from './request-tracing.js';
import { routeLabeler } from './route-label.js';
import { apiDescriptionVersion, apiTitle, buildOpenApiDocument } from './openapi/openapi-document.js';
import { registerDocsRoutes } from './openapi/docs-page.js';
import { inferenceRouteSpecs, registerInferenceRoutes, type InferenceRouteOptions } from './inference/inference-routes.js';
import { registerConsoleRoutes, type ConsoleOptions } from './console-routes.js';

/** Options of the {@link berth} Fastify plugin (Fastify's own `prefix` register option mounts it under a path). */
export interface BerthPluginOptions {
  readonly gateway: Gateway;
  /** Extra routes from other plugins (inference, images). */
  readonly extraRoutes?: readonly RouteSpec[];
  /** Largest accepted JSON request body in bytes; larger bodies answer 413. Default 10 MiB. */
  readonly bodyLimit?: number;
  /** Most object keys in one JSON request body; more answer 413 before the body is parsed. Default 10,000. */
  readonly maxJsonKeys?: number;
  /** Most object members plus array elements in one JSON request body; more answer 413. Default 100,000. */
  readonly maxJsonValues?: number;
  /** Longest string in a control-plane JSON body (inference strings are bounded by `bodyLimit` only); longer answer 413. Default 65,536. */
  readonly maxJsonStringLength?: number;
  readonly logger?: GatewayLogger;
  /** Timeouts and pool of the inference proxy (used when a ServingDirectory is bound). */
  readonly inference?: InferenceRouteOptions;
  /** The web console at `<mount>/console` (docs/console.md); `false` leaves it out. Default: served. */
  readonly console?: false | ConsoleOptions;
}

export const defaultBodyLimit = 10 * 1024 * 1024;

/** Splits `/v1/.../{id}:action` into the Fastify path of its base route and the action. */
function fastifyPathOf(path: string): { route: string; action: string | undefined } {
  const match = /^(.*\})(?::([A-Za-z]+))$/.exec(path);
  const base = match ? match[1]! : path;
  return { route: fastifyParams(base), action: match ? match[2] : undefined };
}

/** Hands a failure to the error handler (`reply.send` of a non-Error would answer it as a body). */
function fail(reply: FastifyReply, error: unknown): void {
  reply.send(error instanceof Error ? error : new Error(String(error)));
}

/** All routes the gateway serves over HTTP. */
export function gatewayRoutes(gateway: Gateway, extra: readonly RouteSpec[] = []): RouteSpec[] {
  // Every route is declared by a resource module (core's, or a plugin's such as the API keys of apiKeyAuth()).
  return [...gateway.resolveAll(resourceRoutesToken).flat(), ...extra];
}

/** The OpenAPI document with every path under `prefix` (the plugin's mount point). */
export function prefixedOpenApiDocument(document: OpenAPIV3_1.Document, prefix: string): OpenAPIV3_1.Document {
  if (prefix === '' || document.paths === undefined) return document;
  const paths: OpenAPIV3_1.PathsObject = {};
  for (const [path, item] of Object.entries(document.paths)) paths[`${prefix}${path}`] = item;
  return { ...document, paths };
}

/**
 * Berth as an encapsulated Fastify plugin: `app.register(berth, { gateway, prefix: '/berth' })`. Every
 * route of the table with bearer auth checked before the body is read, strict and bounded JSON, errors
 * in each surface's format, `/openapi.json`, `/docs`, `/healthz`, `/readyz`. Its content-type parsers,
 * error and not-found handlers, hooks and decorators stay inside its scope: the host's instance is not
 * changed. Server-wide settings (request ids, router limits, timeouts, client errors) belong to whoever
 * creates the Fastify instance; {@link createHttpServer} sets them for a standalone server.
 */
export const berth: FastifyPluginCallback<BerthPluginOptions> = (app, options, done) => {
  try {
    registerBerth(app, options);
    done();
  } catch (error) {
    done(error as Error);
  }
};

/** The request property holding the resolved route (a symbol: nothing visible outside Berth's scope). */
const resolvedRouteKey = Symbol('berth.route');

interface RequestWithRoute {
  [resolvedRouteKey]: { spec: RouteSpec | undefined; params: Record<string, string> } | null;
}

function registerBerth(app: FastifyInstance, options: BerthPluginOptions): void {
  const { gateway } = options;
  const prefix = app.prefix;
  const logger = options.logger ?? gateway.logger;
  const config = gateway.resolve(configToken);
  const routes = gatewayRoutes(gateway, options.extraRoutes);
  const auth = bearerAuthentication(app, gateway.resolve(authenticatorToken));
  const bodyLimit = options.bodyLimit ?? defaultBodyLimit;
  const controlLimits: JsonBodyLimits = {
    maxDepth: config.maxJsonDepth,
    maxKeys: options.maxJsonKeys ?? defaultJsonBodyLimits.maxKeys,
    maxValues: options.maxJsonValues ?? defaultJsonBodyLimits.maxValues,
    maxStringLength: options.maxJsonStringLength ?? defaultJsonBodyLimits.maxStringLength,
  };
  const inferenceLimits: JsonBodyLimits = { ...controlLimits, maxStringLength: bodyLimit };
  const surface = (request: FastifyRequest) => surfaceOf(prefix === '' ? request.url : request.url.slice(prefix.length));
  const pathOf = (request: FastifyRequest) => request.url.split('?')[0]!;

  // This scope's parsers only: the host's own content-type parsers stay as they are.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, text, done) => {
    try {
      done(null, parseJsonBody(text as string, surface(request) === 'control' ? controlLimits : inferenceLimits));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  /** The refusal of a body in a media type the route does not take (the message names the one it takes). */
  const unsupportedMediaType = (request: FastifyRequest) => {
    const expected = (request as unknown as RequestWithRoute)[resolvedRouteKey]?.spec?.multipartFile ? 'multipart/form-data' : 'application/json';
    return invalidArgument(`Content-Type must be ${expected}`, { reason: 'UNSUPPORTED_MEDIA_TYPE' });
  };
  // A route taking a file (`multipartFile`) gets its multipart body unread, parsed as the handler streams it.
  app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    const spec = (request as unknown as RequestWithRoute)[resolvedRouteKey]?.spec;
    if (!spec?.multipartFile) {
      done(unsupportedMediaType(request), undefined);
      return;
    }
    try {
      done(null, new BusboyFileBody(request.headers, payload, spec.multipartFile));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // Any other media type is refused with 400 INVALID_ARGUMENT (signed-URL routes accept bytes in their own context).
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (request, _body, done) => {
    done(unsupportedMediaType(request), undefined);
  });

  app.setErrorHandler((error, request, reply) => {
    const gatewayError = toRequestError(error, logger, request.id);
    const { status, body } = renderError(gatewayError, surface(request));
    void reply.code(status).header('x-request-id', request.id).send(body);
  });
  const telemetry = gateway.resolve(telemetryToken);
  const routeOf = routeLabeler(prefix, (request) => (request as unknown as RequestWithRoute)[resolvedRouteKey]?.spec?.path);
  observeResponses(app, routeOf, { telemetry: telemetry.enabled ? telemetry : undefined, endSpan: tracingEnabled() ? traceRequests(app) : undefined });
  // Unknown paths answer 404 from an `onRequest` hook, before any body is read. The hook lives in a
  // child scope that holds only the not-found handler, so the routes do not run it.
  void app.register((scope, _options, done) => {
    scope.addHook('onRequest', (request, _reply, next) => next(notFound(`${request.method} ${pathOf(request)}`)));
    scope.setNotFoundHandler((request, reply) => reply.send(notFound(`${request.method} ${pathOf(request)}`)));
    done();
  });

  // The route a request resolved to, found once in `preParsing` and read again by the handler.
  app.decorateRequest(resolvedRouteKey as unknown as string, null);
  const grouped = new Map<string, { method: RouteSpec['method']; route: string; byAction: Map<string | undefined, RouteSpec> }>();
  for (const spec of routes) {
    if (spec.signedUrl) continue;
    const { route, action } = fastifyPathOf(spec.path);
    const key = `${spec.method} ${route}`;
    const group = grouped.get(key) ?? { method: spec.method, route, byAction: new Map() };
    group.byAction.set(action, spec);
    grouped.set(key, group);
  }

  for (const group of grouped.values()) {
    const lastParam = /:([a-z_]+)$/.exec(group.route)?.[1];
    const plain = group.byAction.get(undefined);
    /** The route spec of a request (`{id}:verb` picks a custom method; undefined for an unknown verb) and its path parameters. */
    const resolve = (request: FastifyRequest): { spec: RouteSpec | undefined; params: Record<string, string> } => {
      const params = request.params as Record<string, string>;
      const last = lastParam === undefined ? undefined : params[lastParam];
      if (last === undefined || !last.includes(':')) return { spec: plain, params };
      const [id, verb] = last.split(':', 2) as [string, string];
      return { spec: group.byAction.get(verb), params: { ...params, [lastParam!]: id } };
    };
    /** Runs the operation; answers, or hands any failure to the error handler. */
    const serve = (request: FastifyRequest, reply: FastifyReply, spec: RouteSpec, params: Record<string, string>, principal: Principal): void => {
      spec.handle(routeRequestOf(spec, request, reply, params, principal, prefix)).then(
        (result) => {
          discardUnreadFile(request);
          sendAnswer(reply, request.id, result);
        },
        (error: unknown) => {
          discardUnreadFile(request);
          fail(reply, error);
        },
      );
    };
    // Answers are serialized with JSON.stringify (Fastify's default without a response schema): on these
    // bodies it is as fast as a schema-compiled serializer or faster (BENCHMARKS.md), and it cannot drop a field.
    app.route({
      method: group.method,
      url: group.route,
      bodyLimit,
      // The caller is authenticated before Fastify reads the body.
      onRequest: auth.onRequest,
      // Permission before input: checked once the caller is known and before the body is read, so a
      // caller without rights learns nothing from validation errors (and costs no parse).
      preParsing: (request: FastifyRequest, _reply: FastifyReply, payload, done) => {
        try {
          const resolved = resolve(request);
          (request as unknown as RequestWithRoute)[resolvedRouteKey] = resolved;
          const { spec, params } = resolved;
          const accountId = params.account_id;
          if (spec && accountId !== undefined) {
            const caller = { requestId: request.id, principal: auth.principalOf(request) };
            if (spec.permission !== undefined) authorize(caller, spec.permission, { accountId });
            else authorizeAccount(caller, accountId);
          }
          done(null, payload);
        } catch (error) {
          done(error as Error);
        }
      },
      // A callback-style handler (it answers through `reply`, errors included): no async frame and no
      // promise for Fastify to wrap. Every failure still reaches the error handler.
      handler: (request: FastifyRequest, reply: FastifyReply) => {
        try {
          const { spec, params } = (request as unknown as RequestWithRoute)[resolvedRouteKey] ?? resolve(request);
          if (!spec) throw notFound(`${request.method} ${pathOf(request)}`);
          serve(request, reply, spec, params, auth.principalOf(request));
        } catch (error) {
          fail(reply, error);
        }
      },
    });
  }

  // Inference routes stream, so they are registered directly (same auth and error handler) and only documented via RouteSpecs.
  const inferenceDocs = gateway.isBound(servingDirectoryToken) ? inferenceRouteSpecs() : [];
  if (inferenceDocs.length > 0) {
    registerInferenceRoutes(app, { gateway, auth, bodyLimit, logger, ...(options.inference ? { options: options.inference } : {}) });
  }

  const signedUrlRoutes = routes.filter((spec) => spec.signedUrl !== undefined);
  if (signedUrlRoutes.length > 0) void app.register(registerSignedUrlRoutes, { routes: signedUrlRoutes, mountPoint: prefix });

  // Built on the first request for it, not at start-up: the named components and generated examples
  // take about 0.1 s of CPU (BENCHMARKS.md, startup), which every gateway would pay and few read.
  let openApi: OpenAPIV3_1.Document | undefined;
  app.get('/openapi.json', async () => (openApi ??= prefixedOpenApiDocument(buildOpenApiDocument([...routes, ...inferenceDocs]), prefix)));
  registerDocsRoutes(app, { prefix, title: `${apiTitle} ${apiDescriptionVersion}` });
  app.get('/healthz', async () => ({ status: 'ok' }));
  const metricsEndpoint = gateway.isBound(metricsEndpointToken) ? gateway.resolve(metricsEndpointToken) : undefined;
  if (metricsEndpoint?.path !== undefined) serveMetrics(app, { ...metricsEndpoint, path: metricsEndpoint.path });
  if (options.console !== false) registerConsoleRoutes(app, prefix, options.console);
  app.get('/readyz', async (request, reply) => {
    const { status, body } = await readiness(gateway, logger, request.id);
    return reply.code(status).send(body);
  });
}

/** A multipart body the handler left partly unread is read to its end, so the connection stays usable. */
function discardUnreadFile(request: FastifyRequest): void {
  if (request.body instanceof BusboyFileBody) request.body.discard();
}
