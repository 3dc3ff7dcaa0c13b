import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin, registerResourceModules } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { account, startHarness, userWithKey, type Harness } from './harness.js';
import { widgetModule } from './fixtures/widgets/widget-module.js';

// A new resource kind: one folder (fixtures/widgets) and one line in a module list.
const widgets = definePlugin({ id: 'widgets', register: (binder) => registerResourceModules(binder, [widgetModule]) });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), widgets] });
});
afterAll(async () => h.close());

const base = `/v1/accounts/${account}/widgets`;

describe('a resource kind added by a resource module', () => {
  it('is served over HTTP: create, get, list, custom method, delete', async () => {
    const created = await h.call('POST', `${base}?widgetId=w1`, { body: { color: 'red' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: `accounts/${account}/widgets/w1`, color: 'red' });

    expect((await h.call('GET', `${base}/w1`)).body).toMatchObject({ color: 'red' });
    const listed = await h.call<{ widgets: { name: string }[]; totalSize: number }>('GET', `${base}?filter=${encodeURIComponent('color = "red"')}`);
    expect(listed.status).toBe(200);
    expect(listed.body.widgets.map((w) => w.name)).toEqual([`accounts/${account}/widgets/w1`]);

    const polished = await h.call('POST', `${base}/w1:polish`, { body: {} });
    expect(polished.status).toBe(200);
    expect(polished.body).toMatchObject({ polished: true });
    expect((await h.call('POST', `${base}/w1:polish`, { body: { extra: 1 } })).status).toBe(400);
    expect((await h.call('POST', `${base}/w1:shine`, { body: {} })).status).toBe(404);

    expect((await h.call('DELETE', `${base}/w1`)).status).toBe(200);
    expect((await h.call('GET', `${base}/w1`)).status).toBe(404);
  });

  it('checks the declared permission before the body', async () => {
    const caller = await userWithKey(h, 'widget-caller', 'inference-user');
    expect((await h.call('POST', `${base}?widgetId=w2`, { key: caller, raw: '{not json' })).status).toBe(403);
    expect((await h.call('POST', `${base}/w2:polish`, { key: caller, body: { extra: 1 } })).status).toBe(403);
  });

  it('is documented in /openapi.json', async () => {
    const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
    expect(doc.paths[base.replace(account, '{account_id}')]?.post?.operationId).toBe('createWidget');
    expect(doc.paths['/v1/accounts/{account_id}/widgets/{widget_id}']?.get?.operationId).toBe('getWidget');
    expect(doc.paths['/v1/accounts/{account_id}/widgets/{widget_id}:polish']?.post?.operationId).toBe('polishWidget');
  });
});
