import type { Principal, RequestContext } from '../contracts/request-context.js';
import type { StorageTransaction } from './storage.js';

/**
 * Resolves a bearer credential to a principal. Returns undefined for an unknown, expired or malformed
 * credential (the transport answers 401 UNAUTHENTICATED). Throws UNAVAILABLE when storage fails.
 *
 * An authenticator that caches verified identities must forget a principal at once on the instance
 * that changed it (see {@link PrincipalChangeListener}) and within its documented bound on the other
 * instances sharing the storage. `describeAuthenticatorContract` in `@berth/core/testing` checks it.
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

/**
 * Told of every change to a user that affects its principal (role, email, deletion), so that caches
 * of verified identities forget it. Contributed to `principalChangeListenersToken`; the users service
 * calls every listener for every update and deletion of a user.
 */
export interface PrincipalChangeListener {
  /**
   * Runs inside the storage transaction of the change, e.g. to publish it to the other instances
   * through `tx.outbox` so that it commits (or rolls back) with the change. Throwing aborts the change.
   */
  readonly inTransaction?: (ctx: RequestContext, userName: string, tx: StorageTransaction) => Promise<void>;
  /** Runs once the change committed and before it is acknowledged: forget the principal at once. */
  readonly committed: (userName: string) => void;
}
