import { Code, GatewayError, errorCode, unavailable, type InferenceErrorBody } from '@berth/core';

/** Error codes of undici and of the socket layer that mean "the request never reached the replica". */
const connectFailures: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT',
]);

/** True when the upstream call failed before a connection existed: retrying on another replica is safe. */
export function isConnectFailure(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && connectFailures.has(code);
}

/**
 * Maps a failed upstream exchange (no usable answer) to the gateway's error: timeouts are
 * DEADLINE_EXCEEDED (504), everything else about the connection UNAVAILABLE (503, retryable).
 * The cause is kept for the log; its text never reaches the client.
 */
export function upstreamFailure(error: unknown, timeouts: { headersMs: number; bodyIdleMs: number }): GatewayError {
  const code = errorCode(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new GatewayError(Code.DEADLINE_EXCEEDED, `the model replica did not answer within ${timeouts.headersMs} ms`, { reason: 'UPSTREAM_TIMEOUT', cause: error });
  }
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return new GatewayError(Code.DEADLINE_EXCEEDED, `the model replica sent nothing for ${timeouts.bodyIdleMs} ms`, { reason: 'UPSTREAM_TIMEOUT', cause: error });
  }
  if (isConnectFailure(error)) return unavailable('the model replica is unreachable; retry with backoff', { reason: 'UPSTREAM_UNAVAILABLE', cause: error });
  return unavailable('the connection to the model replica failed; retry with backoff', { reason: 'UPSTREAM_UNAVAILABLE', cause: error });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The client's answer for an upstream error status. 4xx keep their status and the engine's OpenAI error
 * (it is about the client's request); 503 stays 503 (the replica is overloaded: retryable); any other
 * 5xx becomes 502 with a generic message, since the engine's text may describe its internals.
 */
export function upstreamErrorAnswer(status: number, bodyText: string, rewrite: (text: string) => string): { status: number; body: InferenceErrorBody } {
  if (status >= 500) {
    if (status === 503) {
      return { status: 503, body: { error: { message: 'the model replica is overloaded; retry with backoff', type: 'server_error', param: null, code: 'upstream_unavailable' } } };
    }
    return { status: 502, body: { error: { message: `the model replica failed (HTTP ${status})`, type: 'server_error', param: null, code: 'bad_gateway' } } };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {}
  const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : undefined;
  const message = typeof error?.message === 'string' ? error.message : bodyText.trim().slice(0, 500) || `the model replica refused the request (HTTP ${status})`;
  return {
    status,
    body: {
      error: {
        message: rewrite(message),
        type: typeof error?.type === 'string' ? error.type : status === 429 ? 'rate_limit_error' : 'invalid_request_error',
        param: typeof error?.param === 'string' ? error.param : null,
        code: typeof error?.code === 'string' ? error.code : typeof error?.code === 'number' ? String(error.code) : null,
      },
    },
  };
}

/** The SSE event sent when a stream that already started fails: OpenAI clients raise it as an APIError. */
export function streamErrorEvent(message: string, code: string): string {
  const body: InferenceErrorBody = { error: { message, type: 'server_error', param: null, code } };
  return `data: ${JSON.stringify(body)}\n\n`;
}
