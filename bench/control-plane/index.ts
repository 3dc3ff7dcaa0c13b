import { fileURLToPath } from 'node:url';
import { startChildServer } from '../lib/child-server.js';
import { printTable, runLoad, type LoadResult } from '../lib/load.js';
import { pinToCpu } from '../lib/cpu-pinning.js';
import { median, pairedRound, percent } from '../lib/stats.js';
import { controlPlaneOperations } from './operations.js';

/**
 * bench/control-plane: GET model and a filtered list of deployments through the gateway (API-key auth
 * on, memory storage) against bare Fastify answering the same JSON, in one run with autocannon.
 * Target: the gateway reaches at least 70% of bare Fastify's requests per second on GET.
 *
 * Method: both targets get byte-identical requests; the load generator runs on CPU 0 and the servers on
 * CPU 1 (where `taskset` exists); rounds are paired (bare and gateway back to back, order alternating)
 * and the reported ratio is the median of the per-round ratios, with their range.
 */


/** The round whose requests per second is the median (its latencies are shown with it). */
function medianRound(results: LoadResult[]): LoadResult {
  const rps = median(results.map((r) => r.requestsPerSecond));
  return results.find((r) => r.requestsPerSecond === rps)!;
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 11);

interface Operation {
  readonly name: string;
  readonly bareUrl: string;
  readonly gatewayUrl: string;
}

export async function runControlPlaneBenchmark(): Promise<{ getRatio: number; rows: Array<Array<string | number>> }> {
  const gateway = await startChildServer(here('./gateway-server.ts'));
  const info = gateway.info as { apiKey: string; filter: string; model: unknown; busyModel: unknown; list: unknown };
  const bare = await startChildServer(here('./bare-fastify-server.ts'), [JSON.stringify(info.model), JSON.stringify(info.busyModel), JSON.stringify(info.list)]);
  // Both targets get byte-identical requests (bare Fastify ignores the Authorization header).
  // The load generator (this process) on CPU 0, both servers on CPU 1: only one server is under load at a time.
  const notPinned = pinToCpu(process.pid, 0) ?? pinToCpu(gateway.pid, 1) ?? pinToCpu(bare.pid, 1);
  const auth = { authorization: `Bearer ${info.apiKey}` };
  const operations: Operation[] = controlPlaneOperations(info.filter).map(({ name, path }) => ({ name, bareUrl: `${bare.url}${path}`, gatewayUrl: `${gateway.url}${path}` }));
  try {
    // Warm up both targets on every operation (JIT, connection setup) before measuring.
    for (const op of operations) {
      await runLoad({ url: op.gatewayUrl, headers: auth, connections, seconds: 2 });
      await runLoad({ url: op.bareUrl, headers: auth, connections, seconds: 2 });
    }
    // Paired rounds: each round measures bare and gateway back to back on the same operation (which one
    // goes first alternates), so a change in the machine's speed — a shared 2-vCPU VM drifts by tens of
    // percent over minutes — hits both sides of a pair alike. The ratio is the median of the per-round ratios.
    const bareRuns: LoadResult[][] = operations.map(() => []);
    const gatewayRuns: LoadResult[][] = operations.map(() => []);
    for (let round = 0; round < rounds; round += 1) {
      for (const [index, op] of operations.entries()) {
        const measureBare = async () => bareRuns[index]!.push(await runLoad({ url: op.bareUrl, headers: auth, connections, seconds, serverPid: bare.pid }));
        const measureGateway = async () => gatewayRuns[index]!.push(await runLoad({ url: op.gatewayUrl, headers: auth, connections, seconds, serverPid: gateway.pid }));
        await pairedRound(round, measureBare, measureGateway);
      }
    }
    for (const runs of [...bareRuns, ...gatewayRuns]) {
      for (const r of runs) if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
    }
    const ratios = operations.map((_, i) => gatewayRuns[i]!.map((g, round) => g.requestsPerSecond / bareRuns[i]![round]!.requestsPerSecond));
    // The same comparison by CPU time per request (bare's over the gateway's): what the ratio of rates would
    // be if each server had its core to itself, which other load on the machine disturbs far less.
    const cpuRatios = operations.map((_, i) => gatewayRuns[i]!.map((g, round) => bareRuns[i]![round]!.cpuMicrosPerRequest / g.cpuMicrosPerRequest));
    const cpuCell = (runs: LoadResult[]) => median(runs.map((r) => r.cpuMicrosPerRequest)).toFixed(1);
    const rows: Array<Array<string | number>> = [];
    for (const [i, op] of operations.entries()) {
      const b = medianRound(bareRuns[i]!);
      const g = medianRound(gatewayRuns[i]!);
      const r = ratios[i]!;
      const c = cpuRatios[i]!;
      rows.push([op.name, 'bare Fastify', Math.round(b.requestsPerSecond), b.p50Ms, b.p99Ms, '100%', '', cpuCell(bareRuns[i]!), '100%']);
      rows.push([op.name, 'gateway', Math.round(g.requestsPerSecond), g.p50Ms, g.p99Ms, percent(median(r)), `${percent(Math.min(...r))}–${percent(Math.max(...r))}`, cpuCell(gatewayRuns[i]!), `${percent(median(c))} (${percent(Math.min(...c))}–${percent(Math.max(...c))})`]);
    }
    console.log(`\ncontrol-plane benchmark: ${connections} connections, ${rounds} paired rounds of ${seconds} s per target (medians shown), Node ${process.version}, ${notPinned === undefined ? 'load generator on CPU 0 and servers on CPU 1' : `not pinned to CPUs (${notPinned})`}\n`);
    printTable(['operation', 'target', 'req/s', 'p50 ms', 'p99 ms', 'of bare (median of rounds)', 'range over rounds', 'CPU µs/req', 'of bare by CPU time (range)'], rows);
    const getRatio = median(ratios[0]!);
    console.log(`\nGET model: gateway at ${percent(getRatio)} of bare Fastify (target ≥ 70%): ${getRatio >= 0.7 ? 'MET' : 'NOT MET'}; by CPU time per request ${percent(median(cpuRatios[0]!))}`);
    console.log(`per-round ratios on GET model: ${ratios[0]!.map(percent).join(', ')}`);
    console.log(`per-round req/s on GET model, bare: ${bareRuns[0]!.map((r) => Math.round(r.requestsPerSecond)).join(', ')}`);
    console.log(`per-round req/s on GET model, gateway: ${gatewayRuns[0]!.map((r) => Math.round(r.requestsPerSecond)).join(', ')}`);
    return { getRatio, rows };
  } finally {
    await gateway.stop();
    await bare.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runControlPlaneBenchmark();
}
