import { permissionDenied } from '../errors/index.js';
import type { RequestContext, Role } from '../kernel/request-context.js';

/**
 * The permission matrix. A permission is `<collection>.<verb>`; the inference surface is `inference.use`.
 *
 * | role           | may                                                                               |
 * |----------------|-----------------------------------------------------------------------------------|
 * | admin          | everything in its account                                                         |
 * | user           | everything except managing users (create/update/delete) and other users' API keys |
 * | contributor    | read everything; create and update resources; no deletes; no user management      |
 * | inference-user | inference; read models, deployments and deployed models                           |
 *
 * Calls on another account are PERMISSION_DENIED with the same message whether the resource exists or
 * not, so a caller learns nothing about other accounts. Calls without a principal are the gateway's
 * own (bootstrap, reconcilers, in-process host code) and are trusted.
 */
export type Verb = 'get' | 'list' | 'create' | 'update' | 'delete' | 'action';
export type Permission = `${string}.${Verb}` | 'inference.use';

const readVerbs: ReadonlySet<string> = new Set(['get', 'list']);
const inferenceReadable: ReadonlySet<string> = new Set(['models', 'deployments', 'deployedModels']);

export interface PermissionTarget {
  readonly accountId: string;
  /** For API-key operations: the user whose keys are touched. */
  readonly ownerUserName?: string;
}

/** Permissions split once: they are a small fixed set of constant strings, checked on every request. */
const splitPermissions = new Map<string, readonly [string, string]>();
function splitPermission(permission: Permission): readonly [string, string] {
  let parts = splitPermissions.get(permission);
  if (parts === undefined) {
    const dot = permission.indexOf('.');
    parts = [permission.slice(0, dot), permission.slice(dot + 1)];
    if (splitPermissions.size < 1024) splitPermissions.set(permission, parts);
  }
  return parts;
}

export function roleAllows(role: Role, permission: Permission, ctx: RequestContext, target: PermissionTarget): boolean {
  const [collection, verb] = splitPermission(permission);
  const own = target.ownerUserName !== undefined && target.ownerUserName === ctx.principal?.userName;
  switch (role) {
    case 'admin':
      return true;
    case 'user':
      if (collection === 'users') return readVerbs.has(verb);
      if (collection === 'apiKeys') return own;
      return true;
    case 'contributor':
      if (collection === 'users') return readVerbs.has(verb);
      if (collection === 'apiKeys') return own && verb !== 'delete';
      return verb !== 'delete';
    case 'inference-user':
      if (permission === 'inference.use') return true;
      return inferenceReadable.has(collection) && readVerbs.has(verb);
  }
}

/**
 * Throws PERMISSION_DENIED unless the caller belongs to `accountId` (the same message whether or not
 * anything exists there). Calls without a principal are trusted.
 */
export function authorizeAccount(ctx: RequestContext, accountId: string): void {
  const principal = ctx.principal;
  if (principal !== undefined && principal.accountId !== accountId) throw permissionDenied(`permission denied on accounts/${accountId}`);
}

/** Throws PERMISSION_DENIED unless the caller may do `permission` on the target account. */
export function authorize(ctx: RequestContext, permission: Permission, target: PermissionTarget): void {
  const principal = ctx.principal;
  if (principal === undefined) return;
  authorizeAccount(ctx, target.accountId);
  if (!roleAllows(principal.role, permission, ctx, target)) {
    throw permissionDenied(`role "${principal.role}" may not ${permission.replace('.', ' ')} in accounts/${target.accountId}`);
  }
}
