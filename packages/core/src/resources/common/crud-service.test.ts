import { beforeEach, describe, expect, it } from 'vitest';
import { Code } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { systemClock } from '../../ports/clock.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import { MemoryStorage } from '../../testing/index.js';
import { crudService } from './crud-service.js';
import { commonFields } from './fields.js';
import type { ResourceDefinition } from './resource-definition.js';
import { ResourceEnvironment } from './resource-environment.js';
import type { ResourceType } from './schema-type.js';
import { GatewaySecrets } from './secrets.js';
import { defineStateMachine } from './state-machine.js';

const gadgetSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    createTime: { type: 'string' },
    updateTime: { type: 'string' },
    state: { type: 'string', enum: ['NEW', 'SHINY'] },
    color: { type: 'string' },
    etag: { type: 'string' },
  },
} as const;
type Gadget = ResourceType<typeof gadgetSchema>;

function gadgetDefinition(defaultColor: string): ResourceDefinition<Gadget> {
  return {
    collection: 'gadgets', singular: 'gadget', schema: gadgetSchema, outputOnly: ['name', 'createTime', 'updateTime', 'state'],
    immutable: [], fields: commonFields, defaultOrder: 'create_time',
    stateMachine: defineStateMachine({ resource: 'gadget', initial: 'NEW', transitions: { NEW: ['SHINY'], SHINY: [] } }),
    prepareCreate: (_ctx, gadget) => {
      gadget.color ??= defaultColor;
    },
  };
}

/** A kind with its own method, on top of three standard ones. */
class GadgetService extends crudService(gadgetDefinition, ['create', 'get', 'delete']) {
  polish(ctx: RequestContext, name: string): Promise<Gadget> {
    this.resources.authorizeName(ctx, name, 'action');
    return this.resources.mutate(ctx, name, (gadget) => ({ ...gadget, state: 'SHINY' }));
  }
}

const ctx: RequestContext = { requestId: 'r', principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin' } };
let env: ResourceEnvironment;
let secrets: GatewaySecrets;

beforeEach(async () => {
  const storage = new MemoryStorage();
  env = new ResourceEnvironment(storage, systemClock, randomIdGenerator);
  secrets = new GatewaySecrets('test-secret');
  await secrets.load(ctx, storage.kv);
});

describe('crudService', () => {
  it('makes a class with exactly the standard methods listed, over a ResourceService of the definition', async () => {
    const gadgets = new GadgetService(env, secrets, 'red');
    expect(gadgets.resources.definition.collection).toBe('gadgets');
    const created = await gadgets.create(ctx, 'acme', { color: 'blue' }, 'g1');
    expect(created).toMatchObject({ name: 'accounts/acme/gadgets/g1', state: 'NEW', color: 'blue' });
    expect(typeof created.etag).toBe('string');
    expect((await gadgets.create(ctx, 'acme', {})).name).toMatch(/^accounts\/acme\/gadgets\/[a-z][a-z0-9]{15}$/);
    expect(await gadgets.get(ctx, 'accounts/acme/gadgets/g1', 'color')).toEqual({ name: 'accounts/acme/gadgets/g1', color: 'blue' });
    expect(await gadgets.polish(ctx, 'accounts/acme/gadgets/g1')).toMatchObject({ state: 'SHINY' });
    await gadgets.delete(ctx, 'accounts/acme/gadgets/g1');
    await expect(gadgets.get(ctx, 'accounts/acme/gadgets/g1')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    // Not listed, so absent at run time as in the type.
    expect('list' in gadgets).toBe(false);
    expect('update' in gadgets).toBe(false);
  });

  it('builds the definition from the arguments after the environment and the secrets', async () => {
    const gadgets = new GadgetService(env, secrets, 'green');
    expect(await gadgets.create(ctx, 'acme', {}, 'g2')).toMatchObject({ color: 'green' });
  });

  it('takes a definition as is, and passes update and list through with their options', async () => {
    const Gadgets = crudService(gadgetDefinition('grey'), ['create', 'list', 'update']);
    const gadgets = new Gadgets(env, secrets);
    const created = await gadgets.create(ctx, 'acme', {}, 'g3');
    await expect(gadgets.update(ctx, created.name, { color: 'pink' }, 'color', { etag: 'stale' })).rejects.toMatchObject({ code: Code.ABORTED });
    expect(await gadgets.update(ctx, created.name, { color: 'pink' }, 'color', { etag: created.etag! })).toMatchObject({ color: 'pink' });
    expect((await gadgets.list(ctx, 'acme', { filter: 'name = "accounts/acme/gadgets/g3"' })).items.map((g) => g.color)).toEqual(['pink']);
  });

  it('reuses the etag view of an unchanged stored body, and answers the new etag after a write', async () => {
    const Gadgets = crudService(gadgetDefinition('grey'), ['create', 'list', 'update']);
    const gadgets = new Gadgets(env, secrets);
    const created = await gadgets.create(ctx, 'acme', {}, 'g4');
    const first = (await gadgets.list(ctx, 'acme', {})).items[0]!;
    const second = (await gadgets.list(ctx, 'acme', {})).items[0]!;
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.etag).toBe(created.etag);
    const updated = await gadgets.update(ctx, created.name, { color: 'teal' }, 'color', { etag: first.etag! });
    const third = (await gadgets.list(ctx, 'acme', {})).items[0]!;
    expect(third).toMatchObject({ color: 'teal', etag: updated.etag });
    expect(third.etag).not.toBe(first.etag);
  });
});
