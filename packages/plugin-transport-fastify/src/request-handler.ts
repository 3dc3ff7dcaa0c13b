import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHttpServer, type HttpServerOptions } from './http-server.js';

/** Options of {@link createBerthRequestHandler}: those of the {@link berth} plugin and the mount point. */
export interface BerthRequestHandlerOptions extends Omit<HttpServerOptions, 'timeouts' | 'maxHeaderBytes'> {
  /**
   * The path Berth answers under, e.g. `/berth` (its API at `/berth/v1/...`). Requests outside it go to
   * `next`. Default: at the root (every request is Berth's).
   */
  readonly prefix?: string;
}

/**
 * A Node request listener serving Berth, for an app that is not a Fastify app: a plain `node:http` server
 * (`createServer((req, res) => handler(req, res, () => yourApp(req, res)))`) or Express / Connect
 * (`app.use(handler)`, before any body parser). Requests under the prefix are answered by Berth, with its
 * routes, auth, error format and streaming (SSE) answers; any other request is passed to `next` when one
 * is given (the host's own routes), else answered by Berth's 404.
 */
export interface BerthRequestHandler {
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
  /** The mount point (`''` at the root). */
  readonly prefix: string;
  /**
   * Stops the handler: requests that still arrive answer 503 UNAVAILABLE in Berth's format. The gateway is
   * the host's to stop (after this), as is the HTTP server.
   */
  close(): Promise<void>;
}

/** Thrown to `next` (or answered 500) when a body parser of the host read a request body before Berth. */
export class BodyAlreadyReadError extends Error {
  override readonly name = 'BodyAlreadyReadError';
  constructor(url: string) {
    super(`the body of ${url} was read before Berth's handler ran: mount Berth before body parsers (e.g. express.json())`);
  }
}

/**
 * Creates a {@link BerthRequestHandler} for a gateway (started or not). It is a Fastify instance that
 * never listens: the host's server hands it requests through Fastify's public `routing(req, res)`. The
 * per-server settings a host's server owns (timeouts, header limits, client-error answers) stay the
 * host's; request ids, router limits and the error answers for malformed URLs are Berth's, as in
 * {@link createHttpServer}.
 */
export async function createBerthRequestHandler(options: BerthRequestHandlerOptions): Promise<BerthRequestHandler> {
  const prefix = normalizedPrefix(options.prefix ?? '');
  const app = createHttpServer({ ...options, prefix });
  await app.ready();
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void => {
    // Express and Connect strip the mount path from `url` under `app.use('/berth', handler)`: route by
    // the full URL they keep in `originalUrl`.
    const original = (req as IncomingMessage & { originalUrl?: unknown }).originalUrl;
    if (typeof original === 'string') req.url = original;
    const url = req.url ?? '/';
    if (next !== undefined && !isUnder(url, prefix)) {
      next();
      return;
    }
    if (req.readableEnded && hasBody(req)) {
      const error = new BodyAlreadyReadError(url.split('?')[0]!);
      if (next !== undefined) next(error);
      else res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(error.message);
      return;
    }
    app.routing(req, res);
  };
  return Object.assign(handler, { prefix, close: () => app.close() });
}

/** `/berth/` and `berth` → `/berth`; `/` → `''`. */
function normalizedPrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function isUnder(url: string, prefix: string): boolean {
  if (prefix === '' || !url.startsWith(prefix)) return prefix === '';
  const rest = url.charAt(prefix.length);
  return rest === '' || rest === '/' || rest === '?';
}

/** Whether the request announced a body (as `type-is`'s `hasBody`, used by the common body parsers). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? '0') > 0;
}
