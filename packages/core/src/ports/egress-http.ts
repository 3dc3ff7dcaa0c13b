import type { RequestContext } from '../contracts/request-context.js';

/**
 * Limits of one outbound exchange. Each is optional (the client's defaults apply); `Infinity` turns a limit
 * off, for instance the total time of a long-lived event stream. The headers and body-idle timeouts are
 * undici's, checked about every half second: they are bounds, not precise durations.
 */
export interface EgressLimits {
  /** Time from sending the request (connection included) to the response headers, ms. */
  readonly headersTimeoutMs?: number;
  /** Longest pause between two chunks of the response body, ms. */
  readonly bodyIdleTimeoutMs?: number;
  /** The whole exchange (every redirect hop and the body), ms; a context's `deadline` shortens it. */
  readonly totalTimeoutMs?: number;
  /** Largest response body read, bytes; a larger body is aborted as soon as it passes the cap. */
  readonly maxResponseBytes?: number;
  /** Redirects followed, 0 to 5 (default 5); one more is INVALID_ARGUMENT. */
  readonly maxRedirects?: number;
}

/** What to do with a 3xx answer that carries a `Location`. */
export type EgressRedirectMode = 'follow' | 'manual' | 'error';

/** One outbound request. The body is buffered, so it can be sent again on a 307/308 redirect. */
export interface EgressRequest extends EgressLimits {
  /** Default `GET`. `CONNECT`, `TRACE` and `TRACK` are INVALID_ARGUMENT. */
  readonly method?: string;
  /**
   * Request headers. `host`, `content-length`, `accept-encoding` and hop-by-hop headers are the client's:
   * they are dropped, and bodies are always asked for uncompressed (so the byte cap counts real bytes).
   */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /**
   * `follow` (default): follow up to `maxRedirects`, re-checking each hop's address; `manual`: return the
   * 3xx answer; `error`: a redirect is INVALID_ARGUMENT.
   */
  readonly redirect?: EgressRedirectMode;
}

/** A buffered answer. Any status is an answer: a 404 or 500 from the remote is not an error here. */
export interface EgressResponse {
  readonly status: number;
  /** Lowercased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The URL that answered, after redirects. */
  readonly url: string;
  readonly body: Uint8Array;
  /** The body decoded as UTF-8. */
  text(): string;
  /** The body parsed as JSON. @throws GatewayError UNAVAILABLE when it is not JSON. */
  json(): unknown;
}

/**
 * The shape of `fetch` that SDKs accept as a custom fetch (e.g. the transports of
 * `@modelcontextprotocol/sdk`): the web platform's `Request`, `RequestInit` and `Response`.
 */
export type EgressFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * The gateway's one way to call a URL that a user supplied (webhook URLs, image URLs, MCP servers).
 * Implementations refuse what is not `http:`/`https:` and every address that is not public (after DNS
 * resolution, on each redirect hop, connecting only to the address that was checked), unless the gateway's
 * settings allow loopback or private addresses; they bound time and response size.
 *
 * Errors are `GatewayError`s: INVALID_ARGUMENT for a refused URL or address, a refused or excessive
 * redirect, or a body over the cap; DEADLINE_EXCEEDED when a timeout or the context's deadline passes;
 * CANCELLED when the context's signal aborts; UNAVAILABLE when the remote cannot be resolved, reached or
 * understood. Nothing else is thrown.
 */
export interface EgressHttp {
  /** Sends one request and reads the whole answer (up to `maxResponseBytes`). */
  request(ctx: RequestContext, url: string | URL, request?: EgressRequest): Promise<EgressResponse>;
  /**
   * A `fetch`-compatible function bound to `ctx` (its signal and deadline end every call made through it)
   * and to `limits`. Its answers stream their bodies, capped and timed like `request`'s. As with `fetch`,
   * a call whose own signal aborts rejects with that signal's reason; every other failure is a
   * `GatewayError` as above.
   */
  createFetch(ctx: RequestContext, limits?: EgressLimits): EgressFetch;
  /** Releases pooled connections; later calls are UNAVAILABLE. The gateway calls it when it stops. */
  close?(): Promise<void>;
}
