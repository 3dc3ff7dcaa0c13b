import type { IncomingHttpHeaders } from 'node:http';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { invalidArgument } from '../errors/gateway-error.js';
import type { EgressRedirectMode } from '../ports/egress-http.js';
import type { AddressPolicy } from './address-policy.js';
import { checkEgressUrl } from './egress-url.js';
import { redirectedHeaders, type HeaderRecord } from './egress-headers.js';
import { undiciTimeout, type ResolvedEgressLimits } from './egress-limits.js';

/** One request as the exchange sends it (headers already through `outgoingHeaders`). */
export interface ExchangeRequest {
  readonly method: string;
  readonly headers: HeaderRecord;
  readonly body: string | Uint8Array | undefined;
  readonly redirect: EgressRedirectMode;
}

/** The answer of the last hop, its body not yet read. */
export interface OpenedExchange {
  readonly status: number;
  readonly statusText: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Dispatcher.ResponseData['body'];
  /** The URL that answered. */
  readonly url: URL;
  readonly redirected: boolean;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const forbiddenMethods = new Set(['CONNECT', 'TRACE', 'TRACK']);
const methodToken = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Read at most this much of a redirect's own body (so the connection can be reused), then drop it.
const redirectBodyDumpBytes = 64 * 1024;

/** Uppercased, a valid token, not one that turns the connection into a tunnel or echoes credentials. */
export function checkMethod(method = 'GET'): string {
  const upper = method.toUpperCase();
  if (!methodToken.test(method) || forbiddenMethods.has(upper)) {
    throw invalidArgument(`outbound request refused: method ${JSON.stringify(method)} is not allowed`, { reason: 'EGRESS_REQUEST_INVALID' });
  }
  return upper;
}

/** The request of the next hop, as `fetch` does it: 303 (and 301/302 after a POST) become a GET without body. */
function nextRequest(request: ExchangeRequest, status: number, from: URL, to: URL): ExchangeRequest {
  const toGet = (status === 303 && request.method !== 'HEAD') || ((status === 301 || status === 302) && request.method === 'POST');
  const keepBody = !toGet;
  return {
    method: toGet ? 'GET' : request.method,
    headers: redirectedHeaders(request.headers, from.origin === to.origin, keepBody),
    body: keepBody ? request.body : undefined,
    redirect: request.redirect,
  };
}

function locationOf(status: number, headers: IncomingHttpHeaders): string | undefined {
  if (!redirectStatuses.has(status)) return undefined;
  const location = headers.location;
  return Array.isArray(location) ? location[0] : location;
}

function redirectTarget(location: string, from: URL, policy: AddressPolicy): URL {
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    throw invalidArgument(`outbound request to ${from.origin} was redirected to an invalid URL`, { reason: 'EGRESS_URL_INVALID' });
  }
  return checkEgressUrl(target, policy);
}

/**
 * Sends `request` to `url` through `dispatcher` (whose connector resolves and checks host names), checking
 * the URL of the first hop and of every redirect before it is called, and follows redirects as `request`
 * and `limits` allow. Returns the last answer with its body unread; the caller reads or destroys it.
 * @throws GatewayError INVALID_ARGUMENT for a refused URL or redirect; whatever undici throws otherwise
 */
export async function openExchange(
  dispatcher: Dispatcher,
  policy: AddressPolicy,
  url: URL,
  request: ExchangeRequest,
  limits: ResolvedEgressLimits,
  signal: AbortSignal,
): Promise<OpenedExchange> {
  let current = url; // checked by the caller (`GuardedEgressHttp.open`); every redirect is checked below
  let hop = request;
  for (let redirects = 0; ; redirects += 1) {
    const answer = await undiciRequest(current, {
      dispatcher,
      method: hop.method as Dispatcher.HttpMethod,
      headers: hop.headers,
      body: hop.body ?? null,
      signal,
      headersTimeout: undiciTimeout(limits.headersTimeoutMs),
      bodyTimeout: undiciTimeout(limits.bodyIdleTimeoutMs),
    });
    // A body fails (is destroyed with an error) when the exchange is aborted or times out, read or not: a
    // reader sees the failure through iteration; this keeps an unread body's from being an uncaught exception.
    answer.body.on('error', () => undefined);
    const location = locationOf(answer.statusCode, answer.headers);
    if (location === undefined || hop.redirect === 'manual') {
      return { status: answer.statusCode, statusText: answer.statusText, headers: answer.headers, body: answer.body, url: current, redirected: redirects > 0 };
    }
    await answer.body.dump({ limit: redirectBodyDumpBytes, signal }).catch(() => undefined);
    if (hop.redirect === 'error') {
      throw invalidArgument(`outbound request to ${current.origin} was redirected, and this request does not follow redirects`, {
        reason: 'EGRESS_REDIRECT_REFUSED',
      });
    }
    if (redirects >= limits.maxRedirects) {
      throw invalidArgument(`outbound request to ${url.origin} was redirected more than ${limits.maxRedirects} times`, {
        reason: 'EGRESS_TOO_MANY_REDIRECTS',
      });
    }
    const next = redirectTarget(location, current, policy);
    hop = nextRequest(hop, answer.statusCode, current, next);
    current = next;
  }
}
