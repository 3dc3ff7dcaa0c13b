import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../kernel/request-context.js';
import type { ListParams, PreconditionOptions } from '../resources/common/resource-service.js';
import { standardOperations } from './standard-operations.js';
import { routeRequest } from './route-request-fixture.js';

class Gadgets {
  readonly calls: unknown[][] = [];
  async get(_ctx: RequestContext, name: string, readMask?: string) {
    this.calls.push(['get', name, readMask]);
    return { name };
  }
  async list(_ctx: RequestContext, accountId: string, params: ListParams) {
    this.calls.push(['list', accountId, params]);
    return { items: [], totalSize: 0 };
  }
  async update(_ctx: RequestContext, name: string, body: unknown, updateMask?: string, options: PreconditionOptions = {}) {
    this.calls.push(['update', name, body, updateMask, options]);
    return { name };
  }
  async delete(_ctx: RequestContext, name: string, options: PreconditionOptions = {}) {
    this.calls.push(['delete', name, options]);
  }
}

/** A service without update, as for jobs. */
class ReadOnlyGadgets {
  async get(_ctx: RequestContext, name: string) {
    return { name };
  }
  async list() {
    return { items: [], totalSize: 0 };
  }
}

describe('standardOperations', () => {
  it('offers get and list alone unless update or delete are named', () => {
    expect(Object.keys(standardOperations(new ReadOnlyGadgets())).sort()).toEqual(['get', 'list']);
    expect(Object.keys(standardOperations(new Gadgets(), ['delete'])).sort()).toEqual(['delete', 'get', 'list']);
    expect(Object.keys(standardOperations(new Gadgets(), ['update', 'delete'])).sort()).toEqual(['delete', 'get', 'list', 'update']);
  });

  it("delegates to the service's methods, delete with the request's precondition", async () => {
    const gadgets = new Gadgets();
    const operations = standardOperations(gadgets, ['update', 'delete']);
    const ctx = routeRequest().ctx;
    await operations.get(ctx, 'accounts/a/gadgets/g', 'name');
    await operations.list(ctx, 'a', { pageSize: 5 }, routeRequest());
    await operations.update!(ctx, 'accounts/a/gadgets/g', { color: 'red' }, 'color', { etag: 'e1' });
    await operations.delete!(ctx, 'accounts/a/gadgets/g', routeRequest({ query: { etag: 'e2' } }));
    await operations.delete!(ctx, 'accounts/a/gadgets/g', { ...routeRequest(), ifMatch: 'e3' });
    expect(gadgets.calls).toEqual([
      ['get', 'accounts/a/gadgets/g', 'name'],
      ['list', 'a', { pageSize: 5 }],
      ['update', 'accounts/a/gadgets/g', { color: 'red' }, 'color', { etag: 'e1' }],
      ['delete', 'accounts/a/gadgets/g', { etag: 'e2' }],
      ['delete', 'accounts/a/gadgets/g', { etag: 'e3' }],
    ]);
  });

  it('refuses, at compile time, a write the service lacks', () => {
    const declare = () =>
      // @ts-expect-error ReadOnlyGadgets has no update
      standardOperations(new ReadOnlyGadgets(), ['update']);
    expect(typeof declare).toBe('function');
  });
});
