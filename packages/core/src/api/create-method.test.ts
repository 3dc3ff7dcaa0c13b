import { describe, expect, it } from 'vitest';
import { createWithId, createWithIdParam, idQueryParam } from './create-method.js';
import { queryFlag } from './query.js';
import { routeRequest } from './route-request-fixture.js';

describe('createWithId', () => {
  const calls: unknown[][] = [];
  const service = { create: async (accountId: string, body: unknown, id?: string) => (calls.push([accountId, body, id]), { name: id ?? 'generated' }) };

  it('documents the id parameter, then the extra ones', () => {
    const flag = { name: 'validateOnly', type: 'boolean', description: 'Only validate.' } as const;
    expect(createWithId<typeof service>('gadgetId', (s, _ctx, accountId, body, id) => s.create(accountId, body, id)).query).toEqual([idQueryParam('gadgetId')]);
    expect(createWithId<typeof service>('gadgetId', (s, _ctx, accountId, body, id) => s.create(accountId, body, id), [flag]).query).toEqual([
      { name: 'gadgetId', type: 'string', description: 'Id of the new resource; generated when absent.' },
      flag,
    ]);
  });

  it('hands the service the body ({} when absent), the client id and the request for flags', async () => {
    calls.length = 0;
    const create = createWithId<typeof service>('gadgetId', (s, _ctx, accountId, body, id, r) =>
      s.create(accountId, { ...(body as object), validateOnly: queryFlag(r.query, 'validateOnly') }, id),
    );
    const r = routeRequest({ query: { gadgetId: 'g1', validateOnly: true }, body: { color: 'red' } });
    expect(await create.handle(service, r.ctx, 'acme', r)).toEqual({ name: 'g1' });
    const bare = routeRequest();
    expect(await create.handle(service, bare.ctx, 'acme', bare)).toEqual({ name: 'generated' });
    expect(calls).toEqual([
      ['acme', { color: 'red', validateOnly: true }, 'g1'],
      ['acme', { validateOnly: false }, undefined],
    ]);
  });
});

describe('createWithIdParam', () => {
  it('passes the context, account, body and client id straight to the service create', async () => {
    const calls: unknown[][] = [];
    const service = { create: async (_ctx: unknown, accountId: string, body: unknown, id?: string) => (calls.push([accountId, body, id]), { name: id ?? 'generated' }) };
    const create = createWithIdParam<typeof service>('gadgetId');
    expect(create.query).toEqual([idQueryParam('gadgetId')]);
    const r = routeRequest({ query: { gadgetId: 'g2' }, body: { color: 'blue' } });
    expect(await create.handle(service, r.ctx, 'acme', r)).toEqual({ name: 'g2' });
    const bare = routeRequest();
    expect(await create.handle(service, bare.ctx, 'acme', bare)).toEqual({ name: 'generated' });
    expect(calls).toEqual([['acme', { color: 'blue' }, 'g2'], ['acme', {}, undefined]]);
  });
});
