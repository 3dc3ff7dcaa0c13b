import { Code, GatewayError, aborted, invalidArgument, isGatewayError, unavailable } from '@berth/core';

const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', 'EAI_AGAIN']);

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** True for PostgreSQL errors worth retrying the whole transaction for. */
export function isRetryableConflict(error: unknown): boolean {
  const cause = isGatewayError(error) ? error.cause : error;
  const code = errorCode(cause);
  return code === '40001' || code === '40P01';
}

/**
 * Translates a driver error into the codes the storage port documents: unique violation →
 * ALREADY_EXISTS, serialization failure or deadlock → ABORTED, lost or refused connection →
 * UNAVAILABLE, a value PostgreSQL cannot hold (class 22 "data exception": NUL in text or jsonb as
 * 22P05/22021, out-of-range numbers; 54000 "program limit exceeded": a key too large to index) →
 * INVALID_ARGUMENT. The validation layer refuses such input first; this is the defence behind it, so
 * no value a caller sends can make the database answer 500. Anything else is returned unchanged (it becomes INTERNAL at the surface: a bug, not a
 * condition callers handle). `name` labels ALREADY_EXISTS.
 */
export function mapDriverError(error: unknown, name = 'resource'): unknown {
  if (error instanceof GatewayError) return error;
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === '23505') {
    return new GatewayError(Code.ALREADY_EXISTS, `${name} already exists`, { reason: 'ALREADY_EXISTS', cause: error });
  }
  if (code !== undefined && (code.startsWith('22') || code === '54000')) {
    return invalidArgument('a value cannot be stored: it contains a NUL character or other data the database cannot represent', {
      reason: 'UNSUPPORTED_VALUE',
      cause: error,
    });
  }
  if (code === '40001') return aborted('the transaction conflicted with a concurrent one; retry', { reason: 'SERIALIZATION_FAILURE', cause: error });
  if (code === '40P01') return aborted('the transaction deadlocked with a concurrent one; retry', { reason: 'DEADLOCK', cause: error });
  if (
    (code !== undefined && (CONNECTION_ERRNOS.has(code) || code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300')) ||
    /Connection terminated|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end/i.test(message)
  ) {
    return unavailable('the database is unavailable', { reason: 'DATABASE_UNAVAILABLE', cause: error });
  }
  return error;
}
