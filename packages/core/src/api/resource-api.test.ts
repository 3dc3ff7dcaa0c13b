import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../kernel/request-context.js';
import { createWithId } from './create-method.js';
import { customMethod } from './custom-method.js';
import { defineResourceApi, resourceApiRoutes } from './resource-api.js';
import { routeRequest } from './route-request-fixture.js';
import { standardOperations } from './standard-operations.js';

const gadgetSchema = { type: 'object', properties: { name: { type: 'string' } } } as const;

class Gadgets {
  async create(_ctx: RequestContext, accountId: string, _body: unknown, id?: string) {
    return { name: `accounts/${accountId}/gadgets/${id ?? 'generated'}` };
  }
  async get(_ctx: RequestContext, name: string) {
    return { name };
  }
  async list() {
    return { items: [], totalSize: 0 };
  }
  async delete() {}
  async polish(_ctx: RequestContext, name: string) {
    return { name, polished: true };
  }
}

const definition = { collection: 'gadgets', singular: 'gadget', schema: gadgetSchema };

describe('resourceApiRoutes', () => {
  it('serves create as declared, the named standard methods and the custom methods, in that order', async () => {
    const api = defineResourceApi<Gadgets>({
      definition, tag: 'Gadgets',
      create: createWithId('gadgetId', (gadgets, ctx, accountId, body, id) => gadgets.create(ctx, accountId, body, id)),
      operations: (gadgets) => standardOperations(gadgets, ['delete']),
      customMethods: [
        customMethod({ verb: 'polish', operationId: 'polishGadget', summary: 'Polish', permission: 'gadgets.action', response: gadgetSchema, run: (g, ctx, name) => g.polish(ctx, name) }),
      ],
    });
    const routes = resourceApiRoutes(api, new Gadgets());
    expect(routes.map((r) => `${r.method} ${r.path} ${r.operationId}`)).toEqual([
      'POST /v1/accounts/{account_id}/gadgets createGadget',
      'GET /v1/accounts/{account_id}/gadgets listGadgets',
      'GET /v1/accounts/{account_id}/gadgets/{gadget_id} getGadget',
      'DELETE /v1/accounts/{account_id}/gadgets/{gadget_id} deleteGadget',
      'POST /v1/accounts/{account_id}/gadgets/{gadget_id}:polish polishGadget',
    ]);
    const create = routes[0]!;
    expect(create.query?.map((q) => q.name)).toEqual(['gadgetId']);
    expect(create.requestBody).toBe(gadgetSchema);
    expect(await create.handle(routeRequest({ params: { account_id: 'acme' }, query: { gadgetId: 'g1' }, body: {} }))).toEqual({ name: 'accounts/acme/gadgets/g1' });
    expect(await routes[4]!.handle(routeRequest({ params: { account_id: 'acme', gadget_id: 'g1' } }))).toEqual({ name: 'accounts/acme/gadgets/g1', polished: true });
  });

  it('has no create route without a create declaration, and takes a declared create body', () => {
    const readOnly = defineResourceApi<Gadgets>({ definition, tag: 'Gadgets', operations: (gadgets) => standardOperations(gadgets) });
    expect(resourceApiRoutes(readOnly, new Gadgets()).map((r) => r.operationId)).toEqual(['listGadgets', 'getGadget']);
    const wrapper = { type: 'object', properties: { gadgetId: { type: 'string' }, gadget: gadgetSchema } } as const;
    const wrapped = defineResourceApi<Gadgets>({
      definition, tag: 'Gadgets',
      create: { body: wrapper, handle: (gadgets, ctx, accountId) => gadgets.create(ctx, accountId, {}) },
      operations: (gadgets) => standardOperations(gadgets),
    });
    const [create] = resourceApiRoutes(wrapped, new Gadgets());
    expect(create).toMatchObject({ operationId: 'createGadget', requestBody: wrapper, query: [] });
  });
});
