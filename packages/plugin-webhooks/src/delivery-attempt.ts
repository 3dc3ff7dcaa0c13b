import { Code, isGatewayError, type EgressHttp, type RequestContext } from '@berth/core';
import { webhookHeaders, webhookSigningKey } from './webhook-signature.js';

/** What one attempt needs from the stored delivery. */
export interface AttemptInput {
  readonly webhookId: string;
  readonly url: string;
  readonly body: string;
  readonly secret: string | undefined;
}

/** How an attempt ended. */
export type AttemptResult =
  /** The receiver answered (any status). */
  | { readonly kind: 'answered'; readonly status: number; readonly retryAfter: string | undefined }
  /** No answer: a timeout, a refused or reset connection, DNS. `permanent` when retrying cannot help. */
  | { readonly kind: 'failed'; readonly error: string; readonly permanent: boolean };

export interface AttemptOptions {
  /** The whole attempt: connect, send, answer headers (ms). */
  readonly timeoutMs: number;
  readonly userAgent: string;
}

/** Reasons of refusals that no retry can change: the URL itself, or what it resolves to, is not allowed. */
const permanentReasons: ReadonlySet<string> = new Set(['EGRESS_URL_INVALID', 'EGRESS_ADDRESS_REFUSED']);

/**
 * True for failures that are the gateway's, not the receiver's (the gateway is stopping, the job was
 * taken over): such an attempt is not recorded, and the queue runs it again later.
 */
export function isGatewaySideFailure(error: unknown): boolean {
  return isGatewayError(error) && (error.code === Code.CANCELLED || error.reason === 'EGRESS_CLOSED');
}

/**
 * Sends one signed attempt through the guarded egress client: POST, the JSON body, Standard Webhooks
 * headers signed now, redirects not followed (a 3xx is an answer, counted as a failure by the caller).
 * Only the status and `Retry-After` are read; the answer's body is discarded unread.
 * @throws GatewayError for gateway-side failures ({@link isGatewaySideFailure}); every other failure is a result
 */
export async function sendAttempt(egress: EgressHttp, ctx: RequestContext, input: AttemptInput, nowMs: number, options: AttemptOptions): Promise<AttemptResult> {
  const key = input.secret === undefined ? undefined : webhookSigningKey(input.secret);
  const headers = {
    'content-type': 'application/json',
    'user-agent': options.userAgent,
    ...webhookHeaders({ webhookId: input.webhookId, timestampSeconds: nowMs / 1000, body: input.body }, key),
  };
  const fetch = egress.createFetch(ctx, {
    totalTimeoutMs: options.timeoutMs,
    headersTimeoutMs: options.timeoutMs,
    bodyIdleTimeoutMs: options.timeoutMs,
    maxRedirects: 0,
    maxResponseBytes: 64 * 1024,
  });
  try {
    const response = await fetch(input.url, { method: 'POST', headers, body: input.body, redirect: 'manual' });
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'answered', status: response.status, retryAfter: response.headers.get('retry-after') ?? undefined };
  } catch (error) {
    if (isGatewaySideFailure(error)) throw error;
    if (isGatewayError(error)) {
      return { kind: 'failed', error: error.message, permanent: error.reason !== undefined && permanentReasons.has(error.reason) };
    }
    return { kind: 'failed', error: error instanceof Error ? error.message : String(error), permanent: false };
  }
}
