/**
 * The `code` of an error thrown by Node or a library (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, …),
 * looked up through its `cause` chain (fetch and undici wrap the socket's error); undefined when none.
 */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error ? errorCode(cause) : undefined;
}
