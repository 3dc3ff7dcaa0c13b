/**
 * What a role may do, as the gateway's permission matrix says (README "Roles"); the console hides or
 * disables what the signed-in role cannot do. The gateway checks every call itself: this only spares the
 * user buttons that would answer 403.
 */
export type Role = 'admin' | 'user' | 'contributor' | 'inference-user';
export type Verb = 'get' | 'list' | 'create' | 'update' | 'delete' | 'action';

const inferenceReadable = new Set(['models', 'deployments', 'deployedModels']);

export function isRole(value: unknown): value is Role {
  return value === 'admin' || value === 'user' || value === 'contributor' || value === 'inference-user';
}

/** Whether `role` may do `verb` on `collection`; `ownKeys` for API keys of the caller's own user. */
export function may(role: Role, collection: string, verb: Verb, ownKeys = false): boolean {
  const read = verb === 'get' || verb === 'list';
  switch (role) {
    case 'admin':
      return true;
    case 'user':
      if (collection === 'users') return read;
      if (collection === 'apiKeys') return ownKeys;
      return true;
    case 'contributor':
      if (collection === 'users') return read;
      if (collection === 'apiKeys') return ownKeys && verb !== 'delete';
      return verb !== 'delete';
    case 'inference-user':
      return inferenceReadable.has(collection) && read;
  }
}

