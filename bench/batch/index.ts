import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { benchDatabaseUrl } from '../lib/bench-database.js';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { cpuMicros, printTable } from '../lib/load.js';

/**
 * bench/batch: what running rows as a batch job costs against sending them yourself, and whether the
 * gateway's memory stays flat as the job grows. In one run, loopback only:
 * (a) a client sends N rows straight to the reference engine at concurrency C (the baseline, measured
 *     before and after (b), the mean used);
 * (b) the same N rows, uploaded as a dataset, run as a batch job through a gateway (its own process,
 *     PostgreSQL storage) at the same concurrency, timed from the job's create to COMPLETED (validation,
 *     every row, writing the output dataset);
 * (c) the gateway's peak RSS during a job of N rows and of 10 × N rows and the download of its output
 *     (results and errors, streamed), each in a fresh gateway process, sampled from /proc every 25 ms.
 * The engine runs in its own process and waits ENGINE_TTFT_MS before each answer (a model that takes
 * time); the rows ask for max_tokens 8. Targets: (b) ≥ 0.9 × (a) rows/s; 10 × N peak RSS within 50 MB
 * of N's.
 *
 * Environment: BENCH_BATCH_ROWS (N, default 10,000), BENCH_CONCURRENCY (C, default 16), ENGINE_TTFT_MS
 * (default 20), DATABASE_URL (default database `berth_bench` on 127.0.0.1, created when missing; each
 * gateway gets a fresh schema, dropped afterwards), BENCH_GATEWAY_NODE_ARGS (Node options of the
 * gateway processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/batch-prof`), BENCH_BATCH_LARGE=0 (skip (c)).
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const rowsN = Number(process.env.BENCH_BATCH_ROWS ?? 10_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const engineTtftMs = Number(process.env.ENGINE_TTFT_MS ?? 20);
const maxTokens = 8;
const warmupRows = 500;

const bodyOf = (i: number) => ({ messages: [{ role: 'user', content: `Row ${i}: summarise the benefits of batch inference in one line.` }], max_tokens: maxTokens });

function batchFile(rows: number): string {
  const lines: string[] = [];
  for (let i = 0; i < rows; i += 1) lines.push(JSON.stringify({ custom_id: `row-${i}`, method: 'POST', url: '/v1/chat/completions', body: bodyOf(i) }));
  return `${lines.join('\n')}\n`;
}

/** (a): rows sent to the engine by `concurrency` lanes, each waiting for its answer before the next. */
async function direct(engineUrl: string, rows: number): Promise<number> {
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < rows; i = next++) {
      const response = await fetch(`${engineUrl}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'reference-model', ...bodyOf(i) }),
      });
      await response.arrayBuffer();
      if (!response.ok) failures += 1;
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  if (failures > 0) throw new Error(`${failures} direct requests failed`);
  return rows / seconds;
}

/** RSS of a process now, in bytes (Linux /proc); NaN elsewhere. */
function rssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

interface JobRun {
  readonly rowsPerSecond: number;
  /** CPU time (user + system) the gateway used per row from the create call to COMPLETED, µs. */
  readonly cpuMicrosPerRow: number;
  readonly peakRss: number;
  readonly rssBefore: number;
}

/** A gateway child on a fresh schema. */
async function startGateway(databaseUrl: string, engineUrl: string, schema: string): Promise<ChildServer> {
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  return startChildServer(here('./gateway-server.ts'), [engineUrl], { DATABASE_URL: databaseUrl, BENCH_SCHEMA: schema, BENCH_CONCURRENCY: String(concurrency) }, nodeArgs);
}

class GatewayClient {
  constructor(private readonly gateway: ChildServer) {}

  private get headers(): Record<string, string> {
    return { authorization: `Bearer ${String(this.gateway.info.apiKey)}` };
  }

  async call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${this.gateway.url}${path}`, {
      method, headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  }

  async upload(dataset: string, rows: number): Promise<void> {
    await this.call('POST', '/v1/accounts/bench/datasets', { datasetId: dataset, dataset: { displayName: dataset } });
    const form = new FormData();
    form.append('file', new Blob([batchFile(rows)], { type: 'application/jsonl' }), 'rows.jsonl');
    const response = await fetch(`${this.gateway.url}/v1/accounts/bench/datasets/${dataset}:upload`, { method: 'POST', body: form, headers: this.headers });
    if (!response.ok) throw new Error(`upload of ${dataset}: ${response.status} ${await response.text()}`);
  }

  /** Downloads the output dataset's files (streamed by the gateway) and answers their lines. */
  async downloadLines(dataset: string): Promise<number> {
    const endpoint = await this.call('POST', `/v1/accounts/bench/datasets/${dataset}:getDownloadEndpoint`, {});
    let lines = 0;
    for (const url of Object.values(endpoint.filenameToSignedUrls as Record<string, string>)) {
      const response = await fetch(url);
      if (!response.ok || !response.body) throw new Error(`download ${url}: ${response.status}`);
      for await (const chunk of response.body) for (const byte of chunk) if (byte === 0x0a) lines += 1;
    }
    return lines;
  }

  /** Runs a job over `dataset` to COMPLETED and downloads its output, sampling the gateway's RSS meanwhile (the download is not timed). */
  async runJob(id: string, dataset: string, rows: number): Promise<JobRun> {
    const pid = Number(this.gateway.info.pid);
    const rssBefore = rssBytes(pid);
    let peakRss = rssBefore;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, rssBytes(pid));
    }, 25);
    const started = performance.now();
    const cpuBefore = cpuMicros(pid) ?? Number.NaN;
    let cpuPerRow = Number.NaN;
    let seconds = Number.NaN;
    try {
      const created = await this.call('POST', `/v1/accounts/bench/batchInferenceJobs?batchInferenceJobId=${id}`, {
        model: String(this.gateway.info.model), inputDatasetId: dataset, outputDatasetId: `${id}-out`,
      });
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const job = await this.call('GET', `/v1/${String(created.name)}`);
        if (job.state === 'JOB_STATE_COMPLETED') {
          const progress = job.jobProgress as Record<string, number>;
          if (progress.successfullyProcessedRequests !== rows) throw new Error(`job ${id}: ${JSON.stringify(progress)}`);
          break;
        }
        if (job.state === 'JOB_STATE_FAILED' || job.state === 'JOB_STATE_CANCELLED') throw new Error(`job ${id} ended ${String(job.state)}: ${JSON.stringify(job.status)}`);
      }
      seconds = (performance.now() - started) / 1000;
      cpuPerRow = ((cpuMicros(pid) ?? Number.NaN) - cpuBefore) / rows;
      const downloaded = await this.downloadLines(`${id}-out`);
      if (downloaded !== rows) throw new Error(`job ${id}: ${downloaded} output lines for ${rows} rows`);
    } finally {
      clearInterval(sampler);
    }
    peakRss = Math.max(peakRss, rssBytes(pid));
    return { rowsPerSecond: rows / seconds, cpuMicrosPerRow: cpuPerRow, peakRss, rssBefore };
  }
}

/** A fresh gateway: warm-up job, then the measured job of `rows` rows. */
async function gatewayRun(databaseUrl: string, engineUrl: string, rows: number): Promise<JobRun> {
  const schema = `berth_bench_batch_${Date.now().toString(36)}`;
  const gateway = await startGateway(databaseUrl, engineUrl, schema);
  try {
    const client = new GatewayClient(gateway);
    await client.upload('warm-in', warmupRows);
    await client.runJob('warm', 'warm-in', warmupRows);
    await client.upload('rows-in', rows);
    return await client.runJob('measured', 'rows-in', rows);
  } finally {
    await gateway.stop();
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

export interface BatchBenchmarkResult {
  readonly directRowsPerSecond: number;
  readonly batchRowsPerSecond: number;
  readonly peakRssSmall: number;
  readonly peakRssLarge: number;
}

export async function runBatchBenchmark(): Promise<BatchBenchmarkResult> {
  const databaseUrl = await benchDatabaseUrl();
  const load = loadavg().map((l) => l.toFixed(2)).join(' ');
  const engine = await startChildServer(here('../inference/engine-server.ts'), [], { ENGINE_TTFT_MS: String(engineTtftMs) });
  try {
    await direct(engine.url, warmupRows);
    const directBefore = await direct(engine.url, rowsN);
    const small = await gatewayRun(databaseUrl, engine.url, rowsN);
    const directAfter = await direct(engine.url, rowsN);
    const large = process.env.BENCH_BATCH_LARGE === '0' ? undefined : await gatewayRun(databaseUrl, engine.url, rowsN * 10);
    const directRowsPerSecond = (directBefore + directAfter) / 2;

    console.log(`\nbatch benchmark: ${rowsN} rows at concurrency ${concurrency}, engine ${engineTtftMs} ms per answer, max_tokens ${maxTokens}; PostgreSQL storage; Node ${process.version}`);
    console.log(`load average at start: ${load}; at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    printTable(
      ['run', 'rows', 'rows/s', 'gateway CPU µs/row', 'gateway RSS before job MB', 'gateway peak RSS MB'],
      [
        ['(a) client → engine, before', rowsN, Math.round(directBefore), '', '', ''],
        ['(a) client → engine, after', rowsN, Math.round(directAfter), '', '', ''],
        ['(b) batch job via gateway', rowsN, Math.round(small.rowsPerSecond), Math.round(small.cpuMicrosPerRow), mb(small.rssBefore), mb(small.peakRss)],
        ...(large ? [['(c) batch job via gateway', rowsN * 10, Math.round(large.rowsPerSecond), Math.round(large.cpuMicrosPerRow), mb(large.rssBefore), mb(large.peakRss)]] : []),
      ],
    );
    const ratio = small.rowsPerSecond / directRowsPerSecond;
    console.log('');
    console.log(`batch rows/s: ${ratio.toFixed(3)} × the direct client's (target ≥ 0.9): ${verdict(ratio >= 0.9)}`);
    if (large) {
      const growth = large.peakRss - small.peakRss;
      console.log(`peak RSS of the ${rowsN * 10}-row job: ${mb(growth)} MB over the ${rowsN}-row job's (target ≤ 50): ${verdict(growth <= 50 * 1024 * 1024)}`);
    }
    return { directRowsPerSecond, batchRowsPerSecond: small.rowsPerSecond, peakRssSmall: small.peakRss, peakRssLarge: large?.peakRss ?? Number.NaN };
  } finally {
    await engine.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runBatchBenchmark();
}
