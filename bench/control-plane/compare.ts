import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { pinToCpu } from '../lib/cpu-pinning.js';
import { printTable, runLoad } from '../lib/load.js';
import { median, percent } from '../lib/stats.js';
import { controlPlaneOperations } from './operations.js';

/**
 * `npm run bench:compare -- <other checkout>`: this checkout's gateway against another checkout's (e.g. a
 * `git worktree` of an older commit, with its own `npm install`), on the control-plane benchmark's
 * operations. Both run their own `bench/control-plane/gateway-server.ts` (same data, same key), pinned
 * to CPU 1 with the load generator on CPU 0; rounds are paired (the two gateways back to back, order
 * alternating) and the result is the median of the per-round ratios "this / other". Use it to tell a
 * regression from the machine's drift: the ratio to bare Fastify moves with bare Fastify's own rate.
 * It also prints each gateway's CPU time per request (from /proc, user + system, on Linux), which other
 * load on the machine moves far less than requests per second.
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 8);

const other = process.argv[2];
const otherScript = other === undefined ? undefined : resolve(other, 'bench/control-plane/gateway-server.ts');
if (otherScript === undefined || !existsSync(otherScript)) {
  console.error('usage: npm run bench:compare -- <path of another checkout, with bench/control-plane/gateway-server.ts and node_modules>');
  process.exit(2);
}

const targets: Array<{ label: string; server: ChildServer }> = [
  { label: 'this checkout', server: await startChildServer(here('./gateway-server.ts')) },
  { label: other!, server: await startChildServer(otherScript) },
];
const notPinned = pinToCpu(process.pid, 0) ?? targets.map((t) => pinToCpu(t.server.pid, 1)).find((why) => why !== undefined);
const operations = controlPlaneOperations(String(targets[0]!.server.info.filter));
const measure = async (target: (typeof targets)[number], path: string) => {
  const headers = { authorization: `Bearer ${String(target.server.info.apiKey)}` };
  const result = await runLoad({ url: `${target.server.url}${path}`, headers, connections, seconds, serverPid: target.server.pid });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rate: result.requestsPerSecond, cpuPerRequest: result.cpuMicrosPerRequest };
};
try {
  for (const op of operations) for (const target of targets) await measure(target, op.path); // warm-up
  const rows: Array<Array<string | number>> = [];
  for (const op of operations) {
    const rates: number[][] = targets.map(() => []);
    const cpu: number[][] = targets.map(() => []);
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) {
        const measured = await measure(targets[i]!, op.path);
        rates[i]!.push(measured.rate);
        cpu[i]!.push(measured.cpuPerRequest);
      }
    }
    const ratios = rates[0]!.map((rate, round) => rate / rates[1]![round]!);
    const micros = (values: number[]) => median(values).toFixed(1);
    rows.push([op.name, Math.round(median(rates[0]!)), Math.round(median(rates[1]!)), percent(median(ratios)), `${percent(Math.min(...ratios))}–${percent(Math.max(...ratios))}`, micros(cpu[0]!), micros(cpu[1]!)]);
  }
  console.log(`\ncontrol-plane comparison: this checkout against ${other}, ${connections} connections, ${rounds} paired rounds of ${seconds} s, Node ${process.version}, ${notPinned === undefined ? 'load generator on CPU 0 and gateways on CPU 1' : `not pinned (${notPinned})`}\n`);
  printTable(['operation', 'this req/s', 'other req/s', 'this / other (median of rounds)', 'range over rounds', 'this CPU µs/req', 'other CPU µs/req'], rows);
} finally {
  for (const target of targets) await target.server.stop();
}
