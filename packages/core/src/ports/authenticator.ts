import type { Principal, RequestContext } from '../kernel/request-context.js';

/**
 * Resolves a bearer credential to a principal. Returns undefined for an unknown, expired or malformed
 * credential (the transport answers 401 UNAUTHENTICATED). Throws UNAVAILABLE when storage fails.
 */
export interface Authenticator {
  authenticate(ctx: RequestContext, credential: string): Promise<Principal | undefined>;
  /**
   * Optional fast path: the principal for `credential` when the authenticator already knows it without
   * I/O (a fresh cache entry), else undefined — and then the caller asks `authenticate`. It must answer
   * exactly what `authenticate` would answer now. The transport calls it first on every request: a hit
   * costs no promise.
   */
  authenticateCached?(credential: string): Principal | undefined;
}
