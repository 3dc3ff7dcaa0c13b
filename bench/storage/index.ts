import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { coreServicesToken, createGateway, systemContext } from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { postgresStorage, type SqlPool } from '@berth/plugin-storage-postgres';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { printTable, runLoad } from '../lib/load.js';
import { BENCH_ACCOUNT, BENCH_API_KEY, BENCH_PAGE_TOKEN_SECRET, FILTER, ORDER_BY, PAGE_SIZE } from './deployment-bodies.js';
import { seedPostgres } from './seed-postgres.js';
import { benchDatabaseUrl } from '../lib/bench-database.js';

/**
 * bench/storage: a filtered, ordered page of deployments through the gateway over HTTP, on PostgreSQL
 * with 100,000 deployments, beside the same on memory storage (the baseline) in one run. Measures the
 * first page and a deep page (page tokens followed BENCH_DEPTH pages in, then that page requested
 * repeatedly): p50/p99 of sequential requests on one keep-alive connection, and req/s with autocannon.
 * Prints the EXPLAIN (ANALYZE, BUFFERS) plans of the SQL the adapter generates for the deep page.
 * Target: p50 below 10 ms on PostgreSQL for both pages.
 *
 * DATABASE_URL picks the server (default: database `berth_bench` on 127.0.0.1, created if missing);
 * the rows live in schema BENCH_SCHEMA (default `berth_bench`) and are reused by later runs
 * (BENCH_RESEED=1 rebuilds them). BENCH_ROWS (100000), BENCH_MEMORY_ROWS (= BENCH_ROWS),
 * BENCH_DEPTH (100), BENCH_ITERATIONS (400), BENCH_SECONDS (5), BENCH_CONNECTIONS (8).
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const rows = Number(process.env.BENCH_ROWS ?? 100_000);
const memoryRows = Number(process.env.BENCH_MEMORY_ROWS ?? rows);
const depth = Number(process.env.BENCH_DEPTH ?? 100);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 400);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const schema = process.env.BENCH_SCHEMA ?? 'berth_bench';
const TARGET_P50_MS = 10;

const auth = { authorization: `Bearer ${BENCH_API_KEY}` };
const listPath = (pageToken?: string) =>
  `/v1/accounts/${BENCH_ACCOUNT}/deployments?filter=${encodeURIComponent(FILTER)}&orderBy=${encodeURIComponent(ORDER_BY)}&pageSize=${PAGE_SIZE}` +
  (pageToken === undefined ? '' : `&pageToken=${encodeURIComponent(pageToken)}`);

interface Page {
  readonly deployments?: Array<{ name: string; createTime: string }>;
  readonly nextPageToken?: string;
  readonly totalSize?: number;
}

async function getPage(url: string): Promise<Page> {
  const response = await fetch(url, { headers: auth });
  if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as Page;
}

/** Follows page tokens `pages` pages in; returns the path of that page and its first item. */
async function deepPath(base: string, pages: number): Promise<{ path: string; token: string; first: string; totalSize: number }> {
  let token: string | undefined;
  let page = await getPage(`${base}${listPath()}`);
  const totalSize = page.totalSize ?? 0;
  for (let i = 0; i < pages; i++) {
    token = page.nextPageToken;
    if (!token) throw new Error(`only ${i + 1} pages of ${PAGE_SIZE}; use fewer BENCH_DEPTH or more rows`);
    page = await getPage(`${base}${listPath(token)}`);
  }
  return { path: listPath(token), token: token ?? '', first: page.deployments?.[0]?.name ?? '', totalSize };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Sequential requests on one keep-alive connection: latency percentiles with sub-millisecond resolution. */
async function sequentialLatency(url: string): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 30; i++) await getPage(url);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await getPage(url);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/** Runs the deep-page list in-process through a pool that records the statements, then EXPLAINs them. */
async function explainDeepPage(pool: pg.Pool, pageToken: string): Promise<string[]> {
  const recorded: Array<{ text: string; params: unknown[] }> = [];
  const recording: SqlPool = {
    query: (text, params) => {
      recorded.push({ text, params: params ?? [] });
      return pool.query(text, params);
    },
    connect: () => pool.connect(),
    end: async () => undefined,
  };
  const gateway = createGateway({ plugins: [postgresStorage({ pool: recording, schema }), apiKeyAuth()], config: { bootstrapAccountId: BENCH_ACCOUNT, pageTokenSecret: BENCH_PAGE_TOKEN_SECRET } });
  await gateway.start();
  try {
    recorded.length = 0;
    await gateway.resolve(coreServicesToken).deployments.list(systemContext('bench'), BENCH_ACCOUNT, { filter: FILTER, orderBy: ORDER_BY, pageSize: PAGE_SIZE, pageToken });
  } finally {
    await gateway.stop();
  }
  const statements = recorded.filter((r) => r.text.includes('berth_resources') && r.text.includes('WHERE parent'));
  const out: string[] = [];
  for (const statement of statements) {
    const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.params);
    out.push(
      `-- ${statement.text.replace(/\s+/g, ' ').slice(0, 160)}…\n-- params: ${JSON.stringify(statement.params)}\n` +
        plan.rows.map((r) => String((r as Record<string, unknown>)['QUERY PLAN'])).join('\n'),
    );
  }
  return out;
}

export async function runStorageBenchmark(): Promise<{ rows: Array<Array<string | number>>; met: boolean }> {
  const databaseUrl = await benchDatabaseUrl();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const servers: ChildServer[] = [];
  try {
    const seeded = await seedPostgres(pool, schema, rows, process.env.BENCH_RESEED === '1');
    console.log(seeded > 0 ? `seeded ${rows} deployments into PostgreSQL schema ${schema} in ${seeded.toFixed(1)} s` : `reusing ${rows} deployments in PostgreSQL schema ${schema}`);
    const postgres = await startChildServer(here('./gateway-server.ts'), ['postgres'], { DATABASE_URL: databaseUrl, BENCH_SCHEMA: schema });
    servers.push(postgres);
    const memory = await startChildServer(here('./gateway-server.ts'), ['memory', String(memoryRows)]);
    servers.push(memory);
    console.log(`seeded ${memoryRows} deployments into memory storage in ${(Number(memory.info.seededMs) / 1000).toFixed(1)} s`);

    const targets: Array<[string, ChildServer, number]> = [['PostgreSQL', postgres, rows], ['memory (baseline)', memory, memoryRows]];
    const table: Array<Array<string | number>> = [];
    const p50s: Record<string, number> = {};
    let pgDeepToken = '';
    for (const [label, server, count] of targets) {
      const deep = await deepPath(server.url, depth);
      if (label === 'PostgreSQL') pgDeepToken = deep.token;
      for (const [pageLabel, path] of [['first page', listPath()], [`page ${depth + 1}`, deep.path]] as const) {
        const latency = await sequentialLatency(`${server.url}${path}`);
        const load = await runLoad({ url: `${server.url}${path}`, headers: auth, connections, seconds });
        if (load.non2xx > 0 || load.errors > 0) throw new Error(`${label} ${pageLabel}: ${load.non2xx} non-2xx answers, ${load.errors} errors`);
        p50s[`${label} ${pageLabel}`] = latency.p50;
        table.push([label, count, deep.totalSize, pageLabel, latency.p50.toFixed(2), latency.p99.toFixed(2), Math.round(load.requestsPerSecond), load.p50Ms, load.p99Ms]);
      }
    }
    console.log(`\nstorage benchmark: filter=${FILTER} orderBy=${ORDER_BY} pageSize=${PAGE_SIZE}; ${iterations} sequential requests, then ${connections} connections × ${seconds} s; Node ${process.version}\n`);
    printTable(['storage', 'rows', 'matches', 'page', 'p50 ms', 'p99 ms', `req/s (${connections} conn)`, 'p50 ms (load)', 'p99 ms (load)'], table);
    const pgFirst = p50s['PostgreSQL first page']!;
    const pgDeep = p50s[`PostgreSQL page ${depth + 1}`]!;
    const met = pgFirst < TARGET_P50_MS && pgDeep < TARGET_P50_MS;
    console.log(`\nPostgreSQL p50: first page ${pgFirst.toFixed(2)} ms, page ${depth + 1} ${pgDeep.toFixed(2)} ms (target < ${TARGET_P50_MS} ms): ${met ? 'MET' : 'NOT MET'}`);
    console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of the statements behind page ${depth + 1} on PostgreSQL:\n`);
    for (const plan of await explainDeepPage(pool, pgDeepToken)) console.log(`${plan}\n`);
    return { rows: table, met };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await pool.end();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runStorageBenchmark();
}
