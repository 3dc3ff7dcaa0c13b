import { Code } from '../errors/code.js';
import { errorCode } from '../errors/error-code.js';
import { GatewayError, invalidArgument, isGatewayError, unavailable } from '../errors/gateway-error.js';
import type { AbortCause } from './exchange-signal.js';

const timeoutCodes = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const callerMistakes = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_HTTP_TOKEN', 'ERR_INVALID_CHAR']);

const timeoutText: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'connecting took too long',
  UND_ERR_HEADERS_TIMEOUT: 'the answer took too long to start',
  UND_ERR_BODY_TIMEOUT: 'the answer paused too long',
};

/** The gateway's error when a cancelled or timed-out exchange ends (whatever the library threw then). */
export function abortedError(origin: string, cause: AbortCause): GatewayError {
  // The client itself closing (the gateway stopping) is UNAVAILABLE, which durable work retries.
  if (cause.by === 'caller' && isGatewayError(cause.reason) && cause.reason.reason === 'EGRESS_CLOSED') return cause.reason;
  if (cause.by === 'timeout') {
    return new GatewayError(Code.DEADLINE_EXCEEDED, `outbound request to ${origin} did not finish within ${cause.afterMs} ms`, {
      reason: 'EGRESS_TIMEOUT',
    });
  }
  return new GatewayError(Code.CANCELLED, `outbound request to ${origin} was cancelled`, { reason: 'EGRESS_CANCELLED', cause: cause.reason });
}

/**
 * Maps what undici or Node threw during an exchange with `origin` (never the full URL: its path and
 * query may hold secrets) to the gateway's error. A GatewayError (a refused address from the checking
 * lookup, a body over the cap) passes through; a cancellation or the total timeout wins over the error it
 * caused; then timeouts are DEADLINE_EXCEEDED, a request undici cannot send as given is INVALID_ARGUMENT,
 * and everything else the remote did (refused or reset connections, TLS, malformed HTTP) is UNAVAILABLE.
 */
export function toEgressError(error: unknown, origin: string, aborted: AbortCause | undefined): GatewayError {
  if (isGatewayError(error)) return error;
  if (aborted !== undefined) return abortedError(origin, aborted);
  const code = errorCode(error);
  if (code !== undefined && timeoutCodes.has(code)) {
    return new GatewayError(Code.DEADLINE_EXCEEDED, `outbound request to ${origin} timed out: ${timeoutText[code] ?? 'no answer in time'}`, {
      reason: 'EGRESS_TIMEOUT',
      cause: error,
    });
  }
  if (code !== undefined && callerMistakes.has(code)) {
    const detail = error instanceof Error ? `: ${error.message}` : '';
    return invalidArgument(`outbound request to ${origin} cannot be sent${detail}`, { reason: 'EGRESS_REQUEST_INVALID', cause: error });
  }
  const what = code === undefined ? '' : ` (${code})`;
  return unavailable(`outbound request to ${origin} failed${what}`, { reason: 'EGRESS_UNAVAILABLE', cause: error });
}
