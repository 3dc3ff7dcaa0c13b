import { codeNumberOf, httpStatusOf } from './code.js';
import type { GatewayError } from './gateway-error.js';

/** Body of a failed control-plane call: `{code: <google.rpc number>, message, details}`. */
export interface ControlPlaneErrorBody {
  code: number;
  message: string;
  details: unknown[];
}

export function renderControlPlaneError(error: GatewayError): { status: number; body: ControlPlaneErrorBody } {
  return {
    status: httpStatusOf(error.code),
    body: { code: codeNumberOf(error.code), message: error.message, details: [...error.details] },
  };
}

/** Body of a failed inference call (OpenAI style). */
export interface InferenceErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const inferenceErrorType: Record<string, string> = {
  INVALID_ARGUMENT: 'invalid_request_error',
  FAILED_PRECONDITION: 'invalid_request_error',
  OUT_OF_RANGE: 'invalid_request_error',
  NOT_FOUND: 'not_found_error',
  UNAUTHENTICATED: 'authentication_error',
  PERMISSION_DENIED: 'permission_error',
  RESOURCE_EXHAUSTED: 'rate_limit_error',
  ALREADY_EXISTS: 'conflict_error',
  ABORTED: 'conflict_error',
};

export function renderInferenceError(error: GatewayError): { status: number; body: InferenceErrorBody } {
  return {
    status: httpStatusOf(error.code),
    body: {
      error: {
        message: error.message,
        type: inferenceErrorType[error.code] ?? 'server_error',
        param: error.field ?? null,
        code: error.reason ? error.reason.toLowerCase() : error.code.toLowerCase(),
      },
    },
  };
}

/** Body of a failed asynchronous image call: always HTTP 400 with `{error_message}` (spec, Errors rule 1). */
export function renderImageError(error: GatewayError): { status: number; body: { error_message: string } } {
  const status = httpStatusOf(error.code);
  // The spec fixes 400 for this surface's failures; auth failures keep their own status so clients can tell.
  return { status: status === 401 || status === 403 ? status : 400, body: { error_message: error.message } };
}
