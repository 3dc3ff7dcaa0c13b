import { describe, expect, it } from 'vitest';
import type { RequestContext, Role } from '../kernel/request-context.js';
import { GatewayError } from '../errors/index.js';
import { authorize, roleAllows, type Permission, type Verb } from './permissions.js';

const account = 'acme';
const resourceCollections = ['models', 'datasets', 'deployments', 'deploymentShapes', 'batchInferenceJobs', 'reinforcementFineTuningJobs', 'deployedModels'];
const verbs: Verb[] = ['get', 'list', 'create', 'update', 'delete', 'action'];
const readVerbs: Verb[] = ['get', 'list'];
/** A caller `userId` with `role` in `accountId`. */
function principalContext(accountId: string, role: Role, userId: string = role): RequestContext {
  return { requestId: `test-${userId}`, principal: { userName: `accounts/${accountId}/users/${userId}`, accountId, role } };
}
const ownKeys = (ctx: RequestContext) => ({ accountId: account, ownerUserName: ctx.principal!.userName });
const otherKeys = { accountId: account, ownerUserName: `accounts/${account}/users/someone-else` };

function allowed(role: Role, permission: Permission, target: (ctx: RequestContext) => { accountId: string; ownerUserName?: string } = () => ({ accountId: account })): boolean {
  const ctx = principalContext(account, role, 'me');
  const decided = roleAllows(role, permission, ctx, target(ctx));
  let threw: unknown;
  try {
    authorize(ctx, permission, target(ctx));
  } catch (error) {
    threw = error;
  }
  // authorize and roleAllows agree; a refusal is PERMISSION_DENIED
  if (decided) expect(threw).toBeUndefined();
  else expect(threw).toMatchObject({ code: 'PERMISSION_DENIED' });
  return decided;
}

describe('admin: everything in its account', () => {
  it.each(resourceCollections.flatMap((c) => verbs.map((v) => `${c}.${v}` as Permission)))('%s', (permission) => {
    expect(allowed('admin', permission)).toBe(true);
  });
  it.each(verbs)('users.%s', (verb) => expect(allowed('admin', `users.${verb}`)).toBe(true));
  it.each(['create', 'list', 'delete'] as const)('own and other users’ apiKeys.%s', (verb) => {
    expect(allowed('admin', `apiKeys.${verb}`, ownKeys)).toBe(true);
    expect(allowed('admin', `apiKeys.${verb}`, () => otherKeys)).toBe(true);
  });
  it('inference', () => expect(allowed('admin', 'inference.use')).toBe(true));
});

describe('user: everything except managing users and other users’ API keys', () => {
  it.each(resourceCollections.flatMap((c) => verbs.map((v) => `${c}.${v}` as Permission)))('%s allowed', (permission) => {
    expect(allowed('user', permission)).toBe(true);
  });
  it.each(readVerbs)('users.%s allowed', (verb) => expect(allowed('user', `users.${verb}`)).toBe(true));
  it.each(['create', 'update', 'delete'] as const)('users.%s denied', (verb) => expect(allowed('user', `users.${verb}`)).toBe(false));
  it.each(['create', 'list', 'delete'] as const)('own apiKeys.%s allowed, other users’ denied', (verb) => {
    expect(allowed('user', `apiKeys.${verb}`, ownKeys)).toBe(true);
    expect(allowed('user', `apiKeys.${verb}`, () => otherKeys)).toBe(false);
  });
  it('inference', () => expect(allowed('user', 'inference.use')).toBe(true));
});

describe('contributor: read everything, create and update, no deletes, no user management', () => {
  it.each(resourceCollections.flatMap((c) => ['get', 'list', 'create', 'update'].map((v) => `${c}.${v}` as Permission)))('%s allowed', (permission) => {
    expect(allowed('contributor', permission)).toBe(true);
  });
  it.each(resourceCollections)('%s.delete denied', (collection) => {
    expect(allowed('contributor', `${collection}.delete`)).toBe(false);
  });
  it.each(readVerbs)('users.%s allowed', (verb) => expect(allowed('contributor', `users.${verb}`)).toBe(true));
  it.each(['create', 'update', 'delete'] as const)('users.%s denied', (verb) => expect(allowed('contributor', `users.${verb}`)).toBe(false));
  it('own API keys: create and list, no delete; other users’ keys: nothing', () => {
    expect(allowed('contributor', 'apiKeys.create', ownKeys)).toBe(true);
    expect(allowed('contributor', 'apiKeys.list', ownKeys)).toBe(true);
    expect(allowed('contributor', 'apiKeys.delete', ownKeys)).toBe(false);
    for (const verb of ['create', 'list', 'delete'] as const) expect(allowed('contributor', `apiKeys.${verb}`, () => otherKeys)).toBe(false);
  });
  it('inference', () => expect(allowed('contributor', 'inference.use')).toBe(true));
});

describe('inference-user: inference; read models, deployments and deployed models', () => {
  it('inference allowed', () => expect(allowed('inference-user', 'inference.use')).toBe(true));
  it.each(['models', 'deployments', 'deployedModels'].flatMap((c) => readVerbs.map((v) => `${c}.${v}` as Permission)))('%s allowed', (permission) => {
    expect(allowed('inference-user', permission)).toBe(true);
  });
  it.each(['models', 'deployments', 'deployedModels'].flatMap((c) => ['create', 'update', 'delete', 'action'].map((v) => `${c}.${v}` as Permission)))(
    '%s denied',
    (permission) => expect(allowed('inference-user', permission)).toBe(false),
  );
  it.each(['datasets', 'deploymentShapes', 'batchInferenceJobs', 'reinforcementFineTuningJobs', 'users'].flatMap((c) => verbs.map((v) => `${c}.${v}` as Permission)))(
    '%s denied',
    (permission) => expect(allowed('inference-user', permission)).toBe(false),
  );
  it('API keys denied, even its own', () => {
    for (const verb of ['create', 'list', 'delete'] as const) {
      expect(allowed('inference-user', `apiKeys.${verb}`, ownKeys)).toBe(false);
      expect(allowed('inference-user', `apiKeys.${verb}`, () => otherKeys)).toBe(false);
    }
  });
});

describe('cross-account calls', () => {
  const roleList: Role[] = ['admin', 'user', 'contributor', 'inference-user'];
  it.each(roleList)('are denied for %s with one message whatever the operation', (role) => {
    const ctx = principalContext('acme', role);
    const messages = new Set<string>();
    for (const permission of ['models.get', 'models.list', 'models.delete', 'inference.use', 'users.create'] as Permission[]) {
      let caught: unknown;
      try {
        authorize(ctx, permission, { accountId: 'other-account' });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(GatewayError);
      expect(caught).toMatchObject({ code: 'PERMISSION_DENIED' });
      messages.add((caught as Error).message);
    }
    expect([...messages]).toEqual(['permission denied on accounts/other-account']);
  });

  it('deny API keys of a user in another account even for admins', () => {
    const ctx = principalContext('acme', 'admin');
    expect(() => authorize(ctx, 'apiKeys.list', { accountId: 'other', ownerUserName: 'accounts/other/users/admin' })).toThrow(
      'permission denied on accounts/other',
    );
  });
});

describe('calls without a principal', () => {
  it('are the gateway’s own and trusted', () => {
    expect(() => authorize({ requestId: 'system-1' }, 'users.delete', { accountId: 'anything' })).not.toThrow();
  });
});
