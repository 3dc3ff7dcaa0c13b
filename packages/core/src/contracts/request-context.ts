/** Who is calling: resolved by the Authenticator from a credential. */
export interface Principal {
  /** Resource name of the user, e.g. `accounts/my-account/users/alice`. */
  readonly userName: string;
  readonly accountId: string;
  readonly role: Role;
  readonly email?: string;
  /** Id of the API key that authenticated the call, when one did. */
  readonly keyId?: string;
}

export const roles = ['admin', 'user', 'contributor', 'inference-user'] as const;
export type Role = (typeof roles)[number];

/** Passed first to every service and port method. No ambient state: everything a call needs is here. */
export interface RequestContext {
  readonly requestId: string;
  /** Absent for system work (reconcilers, bootstrap). */
  readonly principal?: Principal;
  readonly signal?: AbortSignal;
  /** Epoch milliseconds after which the work should stop. */
  readonly deadline?: number;
}

let systemCounter = 0;

/** A context for work the gateway does on its own behalf (bootstrap, reconcilers, workers). */
export function systemContext(purpose = 'system', signal?: AbortSignal): RequestContext {
  systemCounter += 1;
  return { requestId: `${purpose}-${systemCounter}`, ...(signal ? { signal } : {}) };
}
