import type { RequestContext } from '../contracts/request-context.js';
import { invalidArgument, unavailable } from '../errors/gateway-error.js';
import type { EgressFetch } from '../ports/egress-http.js';
import { cappedStream } from './egress-body.js';
import type { GuardedEgressHttp, OpenedEgress } from './egress-client.js';
import { toEgressError } from './egress-errors.js';
import { webHeaders } from './egress-headers.js';
import type { ResolvedEgressLimits } from './egress-limits.js';

type ExchangeOpener = Pick<GuardedEgressHttp, 'open'>;

/** Statuses (and HEAD) whose answer has no body: the web `Response` refuses one. */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/** The web platform's view of a call: its URL, method, headers, body, signal and redirect mode normalized. */
function toWebRequest(input: string | URL | Request, init: RequestInit | undefined): Request {
  try {
    return new Request(input, init);
  } catch (error) {
    const detail = error instanceof Error ? `: ${error.message}` : '';
    throw invalidArgument(`outbound request refused${detail}`, { reason: 'EGRESS_REQUEST_INVALID', cause: error });
  }
}

async function bufferedBody(request: Request): Promise<Uint8Array | undefined> {
  if (request.body === null) return undefined;
  try {
    return new Uint8Array(await request.arrayBuffer());
  } catch (error) {
    throw invalidArgument('outbound request refused: its body could not be read', { reason: 'EGRESS_REQUEST_INVALID', cause: error });
  }
}

/** The web `Response` of an opened exchange, its body streamed under the exchange's cap and timers. */
function toWebResponse(opened: OpenedEgress, method: string, callerSignal: AbortSignal): Response {
  const origin = opened.url.origin;
  const hasBody = method !== 'HEAD' && !nullBodyStatuses.has(opened.status);
  if (!hasBody) {
    // Read what little there is (nothing, normally) so the connection can serve another request.
    void opened.body
      .dump()
      .catch(() => undefined)
      .finally(() => opened.signal.dispose());
  }
  const body = hasBody
    ? cappedStream(opened.body, opened.limits.maxResponseBytes, origin, {
        failure: (error) => (callerSignal.aborted ? callerSignal.reason : toEgressError(error, origin, opened.signal.cause)),
        done: () => opened.signal.dispose(),
      })
    : null;
  let response: Response;
  try {
    response = new Response(body, { status: opened.status, statusText: opened.statusText, headers: webHeaders(opened.headers) });
  } catch (error) {
    opened.body.destroy();
    opened.signal.dispose();
    throw unavailable(`outbound request to ${origin} got an answer that is not valid HTTP (status ${opened.status})`, {
      reason: 'EGRESS_BAD_RESPONSE',
      cause: error,
    });
  }
  // A constructed Response has no URL; callers (and SDKs resolving relative endpoints) expect the one that answered.
  Object.defineProperties(response, { url: { value: opened.url.href }, redirected: { value: opened.redirected } });
  return response;
}

/**
 * `fetch` over the guarded client, for SDKs that take a custom fetch: each call is checked, capped and
 * timed like `EgressHttp.request` (limits as given, `ctx`'s signal and deadline included), and its
 * answer's body streams. Request bodies are buffered (redirects may resend them). As with `fetch`, a call
 * whose own signal aborts rejects, and its body stream errors, with that signal's reason.
 */
export function egressFetch(client: ExchangeOpener, ctx: RequestContext, limits: ResolvedEgressLimits): EgressFetch {
  return async (input, init) => {
    const request = toWebRequest(input, init);
    const callerSignal = request.signal;
    try {
      const body = await bufferedBody(request);
      const opened = await client.open(
        ctx,
        request.url,
        { method: request.method, headers: request.headers, body, redirect: request.redirect },
        limits,
        [callerSignal],
      );
      return toWebResponse(opened, request.method, callerSignal);
    } catch (error) {
      if (callerSignal.aborted) throw callerSignal.reason;
      throw error;
    }
  };
}
