import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../testing/index.js';
import { Code } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { systemClock } from '../../ports/clock.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import { ResourceEnvironment } from '../common/resource-environment.js';
import { GatewaySecrets } from '../common/secrets.js';
import { canTransition } from '../common/state-machine.js';
import { userStateMachine } from './user-state-machine.js';
import { userStateValues } from './user-schema.js';
import { UserService } from './user-service.js';

const ctx: RequestContext = {
  requestId: 'r1',
  principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin', email: 'admin@example.com' },
};
const member: RequestContext = {
  requestId: 'r2',
  principal: { userName: 'accounts/acme/users/bob', accountId: 'acme', role: 'user', email: 'bob@example.com' },
};

let storage: MemoryStorage;
let users: UserService;

beforeEach(async () => {
  storage = new MemoryStorage();
  const env = new ResourceEnvironment(storage, systemClock, randomIdGenerator);
  const secrets = new GatewaySecrets('test-secret');
  await secrets.load(ctx, storage.kv);
  users = new UserService(env, secrets);
});

describe('user state machine', () => {
  it('declares every state, only known targets, and starts READY', () => {
    expect(Object.keys(userStateMachine.transitions).sort()).toEqual([...userStateValues].sort());
    for (const targets of Object.values(userStateMachine.transitions)) {
      for (const target of targets) expect(userStateValues).toContain(target);
    }
    expect(userStateMachine.initial).toBe('READY');
  });

  it('walks the table', () => {
    const expected = new Set([
      'STATE_UNSPECIFIED→CREATING', 'STATE_UNSPECIFIED→READY', 'CREATING→READY', 'CREATING→DELETING',
      'READY→UPDATING', 'READY→DELETING', 'UPDATING→READY', 'UPDATING→DELETING',
    ]);
    for (const from of userStateValues) {
      for (const to of userStateValues) {
        expect(canTransition(userStateMachine, from, to), `${from} → ${to}`).toBe(expected.has(`${from}→${to}`));
      }
    }
  });
});

describe('UserService.create', () => {
  it('creates a READY user with the given id', async () => {
    const created = await users.create(ctx, 'acme', { role: 'contributor', displayName: 'Carol', email: 'carol@example.com', serviceAccount: false }, 'carol');
    expect(created).toMatchObject({
      name: 'accounts/acme/users/carol', role: 'contributor', displayName: 'Carol', email: 'carol@example.com', serviceAccount: false, state: 'READY',
    });
    expect(typeof created.createTime).toBe('string');
    await expect(users.create(ctx, 'acme', { role: 'user' }, 'carol')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
  });

  it('generates an id when none is given', async () => {
    const created = await users.create(ctx, 'acme', { role: 'user' });
    expect(created.name).toMatch(/^accounts\/acme\/users\/[a-z][a-z0-9]{15}$/);
  });

  it('requires role and checks it against the enum', async () => {
    await expect(users.create(ctx, 'acme', { displayName: 'x' }, 'x')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'role' });
    await expect(users.create(ctx, 'acme', { role: 'owner' }, 'x')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'role' });
    for (const role of ['admin', 'user', 'contributor', 'inference-user']) {
      expect((await users.create(ctx, 'acme', { role }, `u-${role}`)).role).toBe(role);
    }
  });

  it('validates displayName, email, serviceAccount, unknown fields and the id', async () => {
    await expect(users.create(ctx, 'acme', { role: 'user', displayName: 'x'.repeat(64) })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'displayName' });
    expect((await users.create(ctx, 'acme', { role: 'user', displayName: 'x'.repeat(63) })).displayName).toHaveLength(63);
    await expect(users.create(ctx, 'acme', { role: 'user', email: 'not-an-email' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'email' });
    await expect(users.create(ctx, 'acme', { role: 'user', serviceAccount: 'yes' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'serviceAccount' });
    await expect(users.create(ctx, 'acme', { role: 'user', password: 'x' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'UNKNOWN_FIELD' });
    await expect(users.create(ctx, 'acme', { role: 'user' }, '-bad')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'userId' });
  });

  it('ignores output-only fields', async () => {
    const created = await users.create(ctx, 'acme', { role: 'user', state: 'DELETING', name: 'accounts/x/users/y', createTime: '2000-01-01T00:00:00Z' }, 'u1');
    expect(created).toMatchObject({ name: 'accounts/acme/users/u1', state: 'READY' });
    expect(created.createTime).not.toBe('2000-01-01T00:00:00Z');
  });

  it('only admins manage users, and only in their account', async () => {
    await expect(users.create(member, 'acme', { role: 'user' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(users.create(ctx, 'other', { role: 'user' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
  });
});

describe('UserService get and list', () => {
  it('gets with a readMask; NOT_FOUND when absent', async () => {
    await users.create(ctx, 'acme', { role: 'user', email: 'a@example.com' }, 'a');
    expect(await users.get(member, 'accounts/acme/users/a', 'email')).toEqual({ name: 'accounts/acme/users/a', email: 'a@example.com' });
    await expect(users.get(ctx, 'accounts/acme/users/zz')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('lists with filter on role and orderBy', async () => {
    await users.create(ctx, 'acme', { role: 'admin' }, 'a');
    await users.create(ctx, 'acme', { role: 'user', serviceAccount: true }, 'b');
    await users.create(ctx, 'acme', { role: 'admin' }, 'c');
    const admins = await users.list(ctx, 'acme', { filter: 'role = admin', orderBy: 'name desc' });
    expect(admins.items.map((u) => u.name)).toEqual(['accounts/acme/users/c', 'accounts/acme/users/a']);
    const robots = await users.list(ctx, 'acme', { filter: 'service_account = true' });
    expect(robots.items.map((u) => u.name)).toEqual(['accounts/acme/users/b']);
    expect((await users.list(ctx, 'acme', {})).totalSize).toBe(3);
  });
});

describe('UserService.update', () => {
  beforeEach(async () => {
    await users.create(ctx, 'acme', { role: 'admin', displayName: 'Root' }, 'root');
    await users.create(ctx, 'acme', { role: 'user', displayName: 'Bob', email: 'bob@example.com' }, 'bob');
  });

  it('updates fields given in the body, keeping the others', async () => {
    const updated = await users.update(ctx, 'accounts/acme/users/bob', { name: 'accounts/acme/users/bob', displayName: 'Robert', role: 'contributor' });
    expect(updated).toMatchObject({ name: 'accounts/acme/users/bob', displayName: 'Robert', role: 'contributor', email: 'bob@example.com', state: 'READY' });
  });

  it('honours an updateMask', async () => {
    const updated = await users.update(ctx, 'accounts/acme/users/bob', { name: 'accounts/acme/users/bob', displayName: 'Robert', role: 'admin' }, 'display_name');
    expect(updated).toMatchObject({ displayName: 'Robert', role: 'user' });
  });

  it('requires the body name and that it equals the path name', async () => {
    await expect(users.update(ctx, 'accounts/acme/users/bob', { displayName: 'x' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'name' });
    await expect(users.update(ctx, 'accounts/acme/users/bob', { name: '', displayName: 'x' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'name' });
    await expect(users.update(ctx, 'accounts/acme/users/bob', { name: 'accounts/acme/users/root', displayName: 'x' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'name' });
    expect((await users.get(ctx, 'accounts/acme/users/bob')).displayName).toBe('Bob');
  });

  it('validates the patch and answers NOT_FOUND for a missing user', async () => {
    await expect(users.update(ctx, 'accounts/acme/users/bob', { name: 'accounts/acme/users/bob', role: 'owner' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'role' });
    await expect(users.update(ctx, 'accounts/acme/users/ghost', { name: 'accounts/acme/users/ghost', role: 'user' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('ignores output-only fields in the patch', async () => {
    const updated = await users.update(ctx, 'accounts/acme/users/bob', { name: 'accounts/acme/users/bob', state: 'DELETING', displayName: 'B' });
    expect(updated.state).toBe('READY');
  });

  it('is PERMISSION_DENIED for a non-admin', async () => {
    await expect(users.update(member, 'accounts/acme/users/bob', { name: 'accounts/acme/users/bob', role: 'admin' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
  });

  it('refuses to demote the last admin, allows it when another admin exists', async () => {
    await expect(users.update(ctx, 'accounts/acme/users/root', { name: 'accounts/acme/users/root', role: 'user' })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION, reason: 'LAST_ADMIN',
    });
    expect((await users.get(ctx, 'accounts/acme/users/root')).role).toBe('admin');
    // A change that keeps the role is fine.
    expect((await users.update(ctx, 'accounts/acme/users/root', { name: 'accounts/acme/users/root', displayName: 'Boss' })).displayName).toBe('Boss');
    await users.update(ctx, 'accounts/acme/users/bob', { name: 'accounts/acme/users/bob', role: 'admin' });
    expect((await users.update(ctx, 'accounts/acme/users/root', { name: 'accounts/acme/users/root', role: 'user' })).role).toBe('user');
  });

  it('admins of other accounts do not count', async () => {
    await users.create({ requestId: 'sys' }, 'other', { role: 'admin' }, 'boss');
    await expect(users.update(ctx, 'accounts/acme/users/root', { name: 'accounts/acme/users/root', role: 'user' })).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
  });

  it('two concurrent demotions of the last two admins cannot both succeed', async () => {
    await users.update(ctx, 'accounts/acme/users/bob', { name: 'accounts/acme/users/bob', role: 'admin' });
    const results = await Promise.allSettled([
      users.update(ctx, 'accounts/acme/users/root', { name: 'accounts/acme/users/root', role: 'user' }),
      users.update(ctx, 'accounts/acme/users/bob', { name: 'accounts/acme/users/bob', role: 'user' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const admins = await users.list(ctx, 'acme', { filter: 'role = admin' });
    expect(admins.totalSize).toBe(1);
  });
});

describe('UserService.delete', () => {
  beforeEach(async () => {
    await users.create(ctx, 'acme', { role: 'admin' }, 'root');
    await users.create(ctx, 'acme', { role: 'user' }, 'bob');
  });

  it('deletes a user, then NOT_FOUND', async () => {
    await users.delete(ctx, 'accounts/acme/users/bob');
    await expect(users.get(ctx, 'accounts/acme/users/bob')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(users.delete(ctx, 'accounts/acme/users/bob')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('refuses to delete the last admin, allows it when another admin exists', async () => {
    await expect(users.delete(ctx, 'accounts/acme/users/root')).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'LAST_ADMIN' });
    await users.create(ctx, 'acme', { role: 'admin' }, 'second');
    await users.delete(ctx, 'accounts/acme/users/root');
    await expect(users.get(ctx, 'accounts/acme/users/root')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('two concurrent deletions of the last two admins cannot both succeed', async () => {
    await users.create(ctx, 'acme', { role: 'admin' }, 'second');
    const results = await Promise.allSettled([users.delete(ctx, 'accounts/acme/users/root'), users.delete(ctx, 'accounts/acme/users/second')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await users.list(ctx, 'acme', { filter: 'role = admin' })).totalSize).toBe(1);
  });

  it('is PERMISSION_DENIED for a non-admin', async () => {
    await expect(users.delete(member, 'accounts/acme/users/bob')).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
  });
});
