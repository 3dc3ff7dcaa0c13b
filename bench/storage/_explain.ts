import pg from 'pg';
import { coreServicesToken, createGateway, systemContext } from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { postgresStorage, type SqlPool } from '@berth/plugin-storage-postgres';
import { BENCH_ACCOUNT, BENCH_PAGE_TOKEN_SECRET, FILTER, ORDER_BY, PAGE_SIZE } from './deployment-bodies.js';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/berth_bench' });
const recorded: Array<{ text: string; params: unknown[] }> = [];
const recording: SqlPool = { query: (t, p) => { recorded.push({ text: t, params: p ?? [] }); return pool.query(t, p); }, connect: () => pool.connect(), end: async () => undefined };
const gateway = createGateway({ plugins: [postgresStorage({ pool: recording, schema: 'berth_bench' }), apiKeyAuth()], config: { bootstrapAccountId: BENCH_ACCOUNT, pageTokenSecret: BENCH_PAGE_TOKEN_SECRET } });
await gateway.start();
const svc = gateway.resolve(coreServicesToken).deployments;
const ctx = systemContext('x');
let token: string | undefined;
for (let i = 0; i < Number(process.argv[2] ?? 100); i++) token = (await svc.list(ctx, BENCH_ACCOUNT, { filter: FILTER, orderBy: ORDER_BY, pageSize: PAGE_SIZE, ...(token ? { pageToken: token } : {}) })).nextPageToken;
recorded.length = 0;
let t = performance.now();
await svc.list(ctx, BENCH_ACCOUNT, { filter: FILTER, orderBy: ORDER_BY, pageSize: PAGE_SIZE, ...(token ? { pageToken: token } : {}) });
console.log('in-process list ms', performance.now() - t);
for (const s of recorded.filter((r) => r.text.includes('WHERE parent'))) {
  if (process.argv[3]) console.log(s.text, JSON.stringify(s.params));
  t = performance.now();
  const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, s.params);
  console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
}
await gateway.stop(); await pool.end();
