import { Api, ApiError, idOf, type Credentials } from './api.ts';
import { isRole, type Role } from './permissions.ts';

/** Who is signed in: the key (kept in sessionStorage, gone when the tab closes), its user and role. */
export interface Session extends Credentials {
  readonly role: Role;
  /** The key's user (`accounts/a/users/u`); absent for an inference-user, who may not list users. */
  readonly userName?: string;
}

const storageKey = 'berth.console.session';

export function loadSession(): Session | undefined {
  try {
    const stored = JSON.parse(sessionStorage.getItem(storageKey) ?? 'null') as Partial<Session> | null;
    if (stored && typeof stored.accountId === 'string' && typeof stored.apiKey === 'string' && isRole(stored.role)) return stored as Session;
  } catch {}
  return undefined;
}

export function saveSession(session: Session | undefined): void {
  if (session === undefined) sessionStorage.removeItem(storageKey);
  else sessionStorage.setItem(storageKey, JSON.stringify(session));
}

/** The prefix the gateway shows of a key in lists (the same rule as the API keys plugin's). */
export function displayPrefix(key: string): string {
  return key.slice(0, Math.min(12, Math.max(4, key.length - 8)));
}

interface UserItem {
  readonly name: string;
  readonly role?: string;
}

/**
 * Signs in with the public API only: the key must read the account; its user is the one whose API keys
 * include a key with this key's prefix (every role but inference-user may read users and its own keys,
 * and admins may read every user's), and the role is that user's. A key that cannot list users but can
 * read models is an inference-user's.
 */
export async function signIn(credentials: Credentials): Promise<Session> {
  const api = new Api(credentials);
  let users: UserItem[];
  try {
    users = await api.listAll<UserItem>('users');
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw signInError(error, credentials);
    try {
      await api.call('GET', '/models', { query: { pageSize: 1 } });
    } catch (inner) {
      throw signInError(inner, credentials);
    }
    return { ...credentials, role: 'inference-user' };
  }
  const prefix = displayPrefix(credentials.apiKey);
  for (const user of users) {
    let keys: { prefix?: string }[];
    try {
      keys = await api.listAll<{ prefix?: string }>(`users/${encodeURIComponent(idOf(user.name))}/apiKeys`);
    } catch {
      continue; // not this caller's user (only admins may read others' keys)
    }
    if (keys.some((key) => key.prefix === prefix) && isRole(user.role)) return { ...credentials, role: user.role, userName: user.name };
  }
  throw new Error('The key is valid, but its user could not be found in the account.');
}

function signInError(error: unknown, credentials: Credentials): Error {
  if (error instanceof ApiError && error.status === 401) return new Error('The API key was not accepted.');
  if (error instanceof ApiError && error.status === 403) return new Error(`This key cannot use account "${credentials.accountId}".`);
  return error instanceof Error ? error : new Error(String(error));
}
