import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { berth, type BerthPluginOptions } from './berth-plugin.js';
import { answerUnavailableWhileClosing, clientErrorHandler, frameworkErrorHandler } from './server-errors.js';

/**
 * Timeouts of a standalone server (milliseconds; 0 disables one). Chosen so that a slow or idle client
 * cannot hold a connection for long, while the longest legitimate waits still fit: a 256 MiB dataset
 * upload at ≥ 2.2 MB/s, and a non-streaming inference answer the proxy waits up to 300 s for.
 */
export interface ServerTimeouts {
  /** From the connection's first byte to the end of the request headers. Default 10 s. */
  readonly headersMs?: number;
  /** From the first byte to the end of the request body: slow bodies are cut here (answer 504). Default 120 s. */
  readonly requestMs?: number;
  /** How long an idle keep-alive connection stays open between requests. Default 72 s (above common load balancers' 60 s). */
  readonly keepAliveMs?: number;
  /** Longest silence on a connection while a request is in progress, the answer included. Default 330 s. */
  readonly idleMs?: number;
  /** How often Node checks the headers and request timeouts (their precision). Default 1 s. */
  readonly checkIntervalMs?: number;
}

export const defaultServerTimeouts: Required<ServerTimeouts> = {
  headersMs: 10_000,
  requestMs: 120_000,
  keepAliveMs: 72_000,
  idleMs: 330_000,
  checkIntervalMs: 1_000,
};

export interface HttpServerOptions extends BerthPluginOptions {
  /** Mount the gateway under this path (e.g. `/berth`). Default: at the root. */
  readonly prefix?: string;
  readonly timeouts?: ServerTimeouts;
  /** Largest request head (request line and headers) in bytes; larger answer 400. Default 16 KiB. */
  readonly maxHeaderBytes?: number;
}

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

/**
 * A standalone Fastify server for a started gateway: the {@link berth} plugin, plus the server-wide
 * settings a host would otherwise own: request ids (`X-Request-Id` kept when well-formed), router
 * limits, timeouts, and the gateway's error format for failures that happen before routing (malformed
 * URLs, over-long path segments, header overflow, bad HTTP, request timeouts, requests arriving while it closes).
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const { prefix = '', timeouts = {}, maxHeaderBytes, ...plugin } = options;
  const t = { ...defaultServerTimeouts, ...timeouts };
  const nextRequestId = requestIdGenerator();
  const app = Fastify({
    logger: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && requestIdPattern.test(given) ? given : nextRequestId();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 512 },
    frameworkErrors: frameworkErrorHandler(prefix),
    clientErrorHandler: clientErrorHandler(prefix),
    // Node requires headersTimeout ≤ requestTimeout when both are set.
    http: {
      headersTimeout: t.requestMs > 0 && t.headersMs > 0 ? Math.min(t.headersMs, t.requestMs) : t.headersMs,
      connectionsCheckingInterval: t.checkIntervalMs,
      ...(maxHeaderBytes !== undefined ? { maxHeaderSize: maxHeaderBytes } : {}),
    },
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    connectionTimeout: t.idleMs,
    return503OnClosing: false,
  });
  answerUnavailableWhileClosing(app, prefix);
  void app.register(berth, { ...plugin, prefix });
  return app;
}
