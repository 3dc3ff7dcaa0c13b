import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import { account, baseModelBody, startHarness, type Harness } from './harness.js';
import { inlineRefs, type OpenApiComponents } from './openapi-refs.js';

/**
 * AIP-154 etags over HTTP (issue 9, defect #13): answers carry `etag`; PATCH and DELETE honour it from
 * `If-Match`, the PATCH body or DELETE's `etag` query parameter with 409 ABORTED when stale; without one,
 * concurrent PATCHes all apply (last writer wins). On memory, and on PostgreSQL when DATABASE_URL is set.
 */
const RACERS = 50;
const ABORTED = 10;
const v1 = `/v1/accounts/${account}`;
const databaseUrl = process.env.DATABASE_URL;

const variants: Array<[string, () => Promise<{ harness: Harness; cleanup(): Promise<void> }>]> = [
  ['memory', async () => ({ harness: await startHarness(), cleanup: async () => undefined })],
];
if (databaseUrl !== undefined && databaseUrl !== '') {
  variants.push([
    'postgres',
    async () => {
      const schema = `berth_e2e_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
      const harness = await startHarness({ plugins: [postgresStorage({ connectionString: databaseUrl, schema }), apiKeyAuth({ cacheTtlMs: 0 })] });
      return {
        harness,
        async cleanup() {
          const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
          await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await pool.end();
        },
      };
    },
  ]);
}

describe.each(variants)('etags over HTTP (%s)', (_variant, start) => {
  let h: Harness;
  let cleanup: () => Promise<void>;
  let id = 0;
  beforeAll(async () => {
    const started = await start();
    h = started.harness;
    cleanup = started.cleanup;
  });
  afterAll(async () => {
    await h.close();
    await cleanup();
  });

  const newModel = async (): Promise<{ path: string; etag: string }> => {
    id += 1;
    const created = await h.call<{ etag: string }>('POST', `${v1}/models`, { body: { modelId: `etag-${id}`, model: baseModelBody() } });
    expect(created.status).toBe(200);
    expect(typeof created.body.etag).toBe('string');
    return { path: `${v1}/models/etag-${id}`, etag: created.body.etag };
  };

  it('GET, LIST and PATCH answers carry the current etag; the OpenAPI document declares it read-only', async () => {
    const { path, etag } = await newModel();
    expect((await h.call('GET', path)).body.etag).toBe(etag);
    const patched = await h.call('PATCH', `${path}?updateMask=displayName`, { body: { displayName: 'x' } });
    expect(patched.status).toBe(200);
    expect(patched.body.etag).not.toBe(etag);
    const list = await h.call<{ models: Array<{ name: string; etag: string }> }>('GET', `${v1}/models?pageSize=100`);
    expect(list.body.models.find((m) => path.endsWith(m.name.split('/').pop() ?? ''))?.etag).toBe(patched.body.etag);
    const openapi = await h.call<OpenApiComponents & { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>> }>('GET', '/openapi.json');
    expect(openapi.status).toBe(200);
    const getters = Object.entries(openapi.body.paths).filter(([p, ops]) => /\/\{[a-z_]+_id\}$/.test(p) && ops.get !== undefined && p.startsWith('/v1/accounts/'));
    expect(getters.length).toBeGreaterThanOrEqual(8);
    for (const [p, ops] of getters) {
      const text = JSON.stringify(inlineRefs(ops.get?.responses, openapi.body));
      expect(text, p).toMatch(/"etag":\{"type":"string","readOnly":true/);
    }
  });

  it('a stale etag in If-Match, the PATCH body or the DELETE query is 409 ABORTED and changes nothing', async () => {
    const { path, etag } = await newModel();
    const fresh = await h.call('PATCH', `${path}?updateMask=displayName`, { body: { displayName: 'one' }, headers: { 'if-match': `"${etag}"` } });
    expect(fresh.status).toBe(200);
    for (const stale of [
      await h.call('PATCH', `${path}?updateMask=displayName`, { body: { displayName: 'two' }, headers: { 'if-match': `"${etag}"` } }),
      await h.call('PATCH', `${path}?updateMask=displayName`, { body: { displayName: 'two', etag } }),
      await h.call('DELETE', path, { headers: { 'if-match': etag } }),
      await h.call('DELETE', `${path}?etag=${encodeURIComponent(etag)}`),
    ]) {
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ code: ABORTED, message: expect.any(String) });
    }
    expect((await h.call('GET', path)).body).toMatchObject({ displayName: 'one', etag: fresh.body.etag });
    const deleted = await h.call('DELETE', `${path}?etag=${encodeURIComponent(String(fresh.body.etag))}`);
    expect(deleted.status).toBe(200);
    expect((await h.call('GET', path)).status).toBe(404);
  });

  it('API keys: create and list answers carry the etag (declared in OpenAPI); DELETE honours If-Match and ?etag=', async () => {
    id += 1;
    const keys = `${v1}/users/etag-keys-${id}/apiKeys`;
    expect((await h.call('POST', `${v1}/users?userId=etag-keys-${id}`, { body: { role: 'user', email: `etag-keys-${id}@example.com` } })).status).toBe(200);
    const created = await h.call<{ keyId: string; etag: string }>('POST', keys, { body: { apiKey: { displayName: 'ci' } } });
    expect(created.status).toBe(200);
    expect(typeof created.body.etag).toBe('string');
    const listed = await h.call<{ apiKeys: Array<{ keyId: string; etag: string }> }>('GET', keys);
    expect(listed.body.apiKeys).toEqual([expect.objectContaining({ keyId: created.body.keyId, etag: created.body.etag })]);
    const path = `${keys}/${created.body.keyId}`;
    for (const stale of [
      await h.call('DELETE', path, { headers: { 'if-match': '"999999999999"' } }),
      await h.call('DELETE', `${path}?etag=stale`),
    ]) {
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ code: ABORTED, message: expect.any(String) });
    }
    expect((await h.call<{ totalSize: number }>('GET', keys)).body.totalSize).toBe(1);
    expect((await h.call('DELETE', `${path}?etag=${encodeURIComponent(created.body.etag)}`)).status).toBe(200);
    expect((await h.call<{ totalSize: number }>('GET', keys)).body.totalSize).toBe(0);
    const second = await h.call<{ keyId: string; etag: string }>('POST', keys, { body: {} });
    expect((await h.call('DELETE', `${keys}/${second.body.keyId}`, { headers: { 'if-match': `"${second.body.etag}"` } })).status).toBe(200);
    const openapi = await h.call<OpenApiComponents & { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; responses: unknown }>> }>('GET', '/openapi.json');
    const collection = openapi.body.paths['/v1/accounts/{account_id}/users/{user_id}/apiKeys'];
    for (const op of [collection?.post, collection?.get]) expect(JSON.stringify(inlineRefs(op?.responses, openapi.body))).toMatch(/"etag":\{"type":"string","readOnly":true/);
    const del = openapi.body.paths['/v1/accounts/{account_id}/users/{user_id}/apiKeys/{key_id}']?.delete;
    expect(del?.parameters?.some((p) => p.name === 'etag' && p.in === 'query')).toBe(true);
  });

  it(`${RACERS} concurrent PATCHes without an etag all answer 200`, async () => {
    const { path } = await newModel();
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) => h.call('PATCH', `${path}?updateMask=description`, { body: { description: `writer ${i}` } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: RACERS }, () => 200));
  });

  it(`${RACERS} concurrent PATCHes with the same If-Match: one 200, the others 409 ABORTED`, async () => {
    const { path, etag } = await newModel();
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) => h.call('PATCH', `${path}?updateMask=description`, { body: { description: `writer ${i}` }, headers: { 'if-match': `"${etag}"` } })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, ...Array.from({ length: RACERS - 1 }, () => 409)]);
  });
});
