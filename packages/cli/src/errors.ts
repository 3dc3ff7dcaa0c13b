/** Errors that end a command, each with its exit code. */

/** Wrong use of the command line (unknown flag, missing argument, bad value): exit code 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

/** google.rpc codes by number, as the gateway sends them in `code`. */
const RPC_CODES = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS',
  'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED',
  'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED',
] as const;

/** An answer of the gateway that is not a success: its HTTP status and its control-plane error body. */
export class GatewayError extends Error {
  readonly exitCode = 1;
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly code: string | undefined,
    readonly body: unknown,
  ) {
    super(message);
  }

  /** Reads `{ code, message, details }` (the gateway's control-plane error format) or any other body. */
  static from(httpStatus: number, body: unknown): GatewayError {
    if (body !== null && typeof body === 'object') {
      const { code, message, error } = body as { code?: unknown; message?: unknown; error?: { message?: unknown } };
      const name = typeof code === 'number' ? RPC_CODES[code] : typeof code === 'string' ? code : undefined;
      if (typeof message === 'string') return new GatewayError(httpStatus, message, name, body);
      if (typeof error?.message === 'string') return new GatewayError(httpStatus, error.message, name, body);
    }
    const text = typeof body === 'string' && body !== '' ? body : `HTTP ${httpStatus}`;
    return new GatewayError(httpStatus, text, undefined, body);
  }
}

/** A failure that is neither usage nor the gateway's answer (unreachable gateway, unreadable file, failed job): exit 1. */
export class CliError extends Error {
  readonly exitCode: number = 1;
}

/** The message and exit code a command ends with for `error`. */
export function describeFailure(error: unknown): { message: string; exitCode: number } {
  if (error instanceof GatewayError) {
    const code = error.code === undefined ? `HTTP ${error.httpStatus}` : `${error.code}, HTTP ${error.httpStatus}`;
    return { message: `${error.message} (${code})`, exitCode: error.exitCode };
  }
  if (error instanceof UsageError || error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  return { message: error instanceof Error ? error.message : String(error), exitCode: 1 };
}
