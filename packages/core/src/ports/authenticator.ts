import type { Principal, RequestContext } from '../kernel/request-context.js';

/**
 * Resolves a bearer credential to a principal. Returns undefined for an unknown, expired or malformed
 * credential (the transport answers 401 UNAUTHENTICATED). Throws UNAVAILABLE when storage fails.
 */
export interface Authenticator {
  authenticate(ctx: RequestContext, credential: string): Promise<Principal | undefined>;
}
