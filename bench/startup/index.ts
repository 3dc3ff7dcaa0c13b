import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { printTable } from '../lib/load.js';
import { gatewayNodeOptions } from '../lib/child-server.js';
import { median } from '../lib/stats.js';

/**
 * bench/startup: how long a process takes from spawn to its first `200 /healthz`, and its resident memory
 * one second later, for the gateway of `npm start` (templates/gateway on the embedded default: memory
 * storage) built to JavaScript, the same gateway run from TypeScript through tsx (what `npm start` ran
 * before the build), `npm start` itself (its build check and the npm wrapper included), and a bare
 * Fastify process answering `/healthz` as the baseline (and, with `BENCH_BEFORE`, another checkout's tsx
 * start). `BENCH_ROUNDS` rounds (default 5), the targets'
 * order rotating each round; medians and ranges over the rounds.
 * Targets of issue 15: first /healthz within 1 s of process start, gateway RSS at most 150 MB.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const tsxCli = fileURLToPath(import.meta.resolve('tsx/cli'));

interface Target {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Working directory; default the repository root. */
  readonly cwd?: string;
}

/** `BENCH_BEFORE=<another checkout>` adds that checkout's `tsx src/main.ts` (e.g. the code before the build). */
const before = process.env.BENCH_BEFORE;
const targets: readonly Target[] = [
  { name: 'bare Fastify (baseline)', command: process.execPath, args: [fileURLToPath(new URL('./bare-fastify.mjs', import.meta.url))] },
  { name: 'gateway, built (node dist/main.js)', command: process.execPath, args: [...gatewayNodeOptions, 'templates/gateway/dist/main.js'] },
  { name: 'gateway, tsx src/main.ts (before)', command: process.execPath, args: [tsxCli, '--conditions=@berth/source', 'templates/gateway/src/main.ts'] },
  { name: 'npm start (build check + npm)', command: 'npm', args: ['start', '--silent'] },
  ...(before
    ? [{ name: `tsx src/main.ts at ${before}`, command: process.execPath, args: [`${before}/node_modules/tsx/dist/cli.mjs`, 'src/main.ts'], cwd: `${before}/templates/gateway` }]
    : []),
];

interface Sample {
  readonly ms: number;
  /** RSS of the process that serves (the innermost node process), MB. */
  readonly gatewayMb: number;
  /** RSS of the whole process tree (wrappers included), MB. */
  readonly treeMb: number;
}

export async function runStartupBenchmark(): Promise<void> {
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
  const samples = new Map<string, Sample[]>(targets.map((target) => [target.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < targets.length; i += 1) {
      const target = targets[(round + i) % targets.length]!;
      samples.get(target.name)!.push(await measure(target));
    }
  }
  const loadavg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`\nstartup (${rounds} rounds, load average at the end ${loadavg})`);
  const range = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
  printTable(
    ['target', 'first /healthz ms (median)', 'range', 'serving process RSS MB (median)', 'range', 'process tree RSS MB (median)'],
    targets.map((target) => {
      const list = samples.get(target.name)!;
      const ms = list.map((s) => s.ms);
      const rss = list.map((s) => s.gatewayMb);
      return [target.name, median(ms).toFixed(0), range(ms, 0), median(rss).toFixed(1), range(rss, 1), median(list.map((s) => s.treeMb)).toFixed(1)];
    }),
  );
  const built = samples.get(targets[1]!.name)!;
  console.log(
    `targets: first /healthz ≤ 1000 ms: ${median(built.map((s) => s.ms)) <= 1000 ? 'met' : 'NOT MET'}; ` +
      `gateway RSS ≤ 150 MB: ${median(built.map((s) => s.gatewayMb)) <= 150 ? 'met' : 'NOT MET'} (medians of the built gateway)`,
  );
}

async function measure(target: Target): Promise<Sample> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error' };
  delete env.DATABASE_URL; // the embedded default
  const started = process.hrtime.bigint();
  const child = spawn(target.command, target.args, { cwd: target.cwd ?? root, env, stdio: 'ignore', detached: true });
  try {
    await waitForHealthz(port, child);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const tree = processTree(child.pid!);
    const serving = tree.filter((p) => p.comm === 'node').at(-1) ?? tree[0]!;
    return { ms, gatewayMb: serving.rssKb / 1024, treeMb: tree.reduce((sum, p) => sum + p.rssKb, 0) / 1024 };
  } finally {
    await stopGroup(child);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealthz(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`target exited with ${child.exitCode} before answering /healthz`);
    if ((await healthz(port)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('no /healthz within 60 s');
}

function healthz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', () => resolve(0));
    req.end();
  });
}

interface ProcessInfo {
  readonly pid: number;
  readonly comm: string;
  readonly rssKb: number;
}

/** The process and its descendants, parents before children (Linux /proc). */
function processTree(rootPid: number): ProcessInfo[] {
  const parents = new Map<number, number>();
  const comms = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      comms.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {} // the process ended meanwhile
  }
  const tree: ProcessInfo[] = [];
  const visit = (pid: number) => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    tree.push({ pid, comm: comms.get(pid) ?? '', rssKb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) });
    for (const [child, parent] of parents) if (parent === pid) visit(child);
  };
  visit(rootPid);
  return tree;
}

/** SIGTERM to the target's process group (wrappers and children), SIGKILL after 5 s. */
function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGTERM');
    setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    }, 5000).unref();
  });
}
