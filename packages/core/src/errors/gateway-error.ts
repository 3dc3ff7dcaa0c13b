import { Code } from './code.js';

/** A detail attached to an error, rendered into the `details` array of the control-plane body. */
export interface ErrorDetail {
  readonly '@type'?: string;
  readonly [key: string]: unknown;
}

export interface GatewayErrorOptions {
  /** Machine-readable reason, e.g. `UNKNOWN_FIELD`. */
  reason?: string;
  /** The request field the error is about (rendered as `param` on the inference surface). */
  field?: string;
  details?: ErrorDetail[];
  cause?: unknown;
}

/** The one error type of Berth. Every surface renders it in its own body format. */
export class GatewayError extends Error {
  readonly code: Code;
  readonly reason: string | undefined;
  readonly field: string | undefined;
  readonly details: ErrorDetail[];

  constructor(code: Code, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.reason = options.reason;
    this.field = options.field;
    this.details = options.details ?? [];
  }
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}

export const invalidArgument = (message: string, options?: GatewayErrorOptions): GatewayError =>
  new GatewayError(Code.INVALID_ARGUMENT, message, options);
export const notFound = (name: string): GatewayError =>
  new GatewayError(Code.NOT_FOUND, `${name} not found`, { reason: 'NOT_FOUND' });
export const alreadyExists = (name: string): GatewayError =>
  new GatewayError(Code.ALREADY_EXISTS, `${name} already exists`, { reason: 'ALREADY_EXISTS' });
export const failedPrecondition = (message: string, options?: GatewayErrorOptions): GatewayError =>
  new GatewayError(Code.FAILED_PRECONDITION, message, options);
export const aborted = (message: string, options?: GatewayErrorOptions): GatewayError =>
  new GatewayError(Code.ABORTED, message, options);
export const permissionDenied = (message: string): GatewayError =>
  new GatewayError(Code.PERMISSION_DENIED, message, { reason: 'PERMISSION_DENIED' });
export const unauthenticated = (message: string): GatewayError =>
  new GatewayError(Code.UNAUTHENTICATED, message, { reason: 'UNAUTHENTICATED' });
export const unavailable = (message: string, options?: GatewayErrorOptions): GatewayError =>
  new GatewayError(Code.UNAVAILABLE, message, options);
export const internal = (message: string, options?: GatewayErrorOptions): GatewayError =>
  new GatewayError(Code.INTERNAL, message, options);
export const unimplemented = (message: string): GatewayError =>
  new GatewayError(Code.UNIMPLEMENTED, message);
export const resourceExhausted = (message: string, options?: GatewayErrorOptions): GatewayError =>
  new GatewayError(Code.RESOURCE_EXHAUSTED, message, options);

/**
 * Turns anything thrown into a GatewayError. Unknown errors become INTERNAL with a generic message:
 * their text may hold internals, so it stays in `cause` for the log and never reaches a client.
 */
export function toGatewayError(error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  return new GatewayError(Code.INTERNAL, 'internal error', { cause: error });
}
