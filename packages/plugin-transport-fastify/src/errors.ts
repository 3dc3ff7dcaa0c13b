import {
  Code, GatewayError, invalidArgument, isGatewayError, renderControlPlaneError, renderImageError, renderInferenceError,
  type GatewayLogger,
} from '@berth/core';
import { bodyTooLarge, bodyTooLargeReason } from './json-body.js';

export type Surface = 'control' | 'inference' | 'image';

/** Which error format a URL answers in. */
export function surfaceOf(url: string): Surface {
  if (url.startsWith('/inference/v1/workflows/')) return 'image';
  if (url.startsWith('/inference/')) return 'inference';
  return 'control';
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
}

/**
 * Maps anything a request raised to a GatewayError. Framework errors about the request itself (bad JSON,
 * wrong media type, oversize body) are the client's fault: 4xx. Everything unknown is INTERNAL, with a
 * generic message; the original goes to the log only.
 */
export function toRequestError(error: unknown, logger: GatewayLogger, requestId: string): GatewayError {
  if (isGatewayError(error)) {
    if (error.code === Code.INTERNAL || error.code === Code.UNKNOWN || error.code === Code.DATA_LOSS) {
      logger.error({ requestId, err: String(error.cause ?? error.message), stack: error.stack }, 'request failed');
    }
    return error;
  }
  const e = (error ?? {}) as FastifyLikeError;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return bodyTooLarge('request body is too large');
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return invalidArgument('Content-Type must be application/json', { reason: 'UNSUPPORTED_MEDIA_TYPE' });
  if (e.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') return invalidArgument('Content-Length does not match the body');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return invalidArgument(e.message ?? 'bad request');
  }
  logger.error({ requestId, err: String(error), stack: error instanceof Error ? error.stack : undefined }, 'unexpected error');
  return new GatewayError(Code.INTERNAL, 'internal error', { cause: error });
}

/**
 * Status and body of `error` on `surface`. A body too large answers HTTP 413 (its code stays
 * INVALID_ARGUMENT), except on the image surface, whose failures are always 400 (spec, Errors rule 1).
 */
export function renderError(error: GatewayError, surface: Surface): { status: number; body: unknown } {
  switch (surface) {
    case 'control':
      return withBodyTooLarge(error, renderControlPlaneError(error));
    case 'inference':
      return withBodyTooLarge(error, renderInferenceError(error));
    case 'image':
      return renderImageError(error);
  }
}

function withBodyTooLarge<T>(error: GatewayError, rendered: { status: number; body: T }): { status: number; body: T } {
  return error.reason === bodyTooLargeReason ? { status: 413, body: rendered.body } : rendered;
}
