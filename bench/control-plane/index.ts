import { fileURLToPath } from 'node:url';
import { startChildServer } from '../lib/child-server.js';
import { printTable, runLoad, type LoadResult } from '../lib/load.js';

/**
 * bench/control-plane: GET model and a filtered list of deployments through the gateway (API-key auth
 * on, memory storage) against bare Fastify answering the same JSON, in one run with autocannon.
 * Target: the gateway reaches at least 70% of bare Fastify's requests per second on GET.
 */
/** The round with the median requests per second. */
function median(results: LoadResult[]): LoadResult {
  const sorted = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

export async function runControlPlaneBenchmark(): Promise<{ getRatio: number; rows: Array<Array<string | number>> }> {
  const gateway = await startChildServer(here('./gateway-server.ts'));
  const info = gateway.info as { apiKey: string; filter: string; model: unknown; busyModel: unknown; list: unknown };
  const bare = await startChildServer(here('./bare-fastify-server.ts'), [JSON.stringify(info.model), JSON.stringify(info.busyModel), JSON.stringify(info.list)]);
  const auth = { authorization: `Bearer ${info.apiKey}` };
  const getPath = '/v1/accounts/bench/models/bench-model';
  const busyPath = '/v1/accounts/bench/models/busy-model';
  const listPath = `/v1/accounts/bench/deployments?filter=${encodeURIComponent(info.filter)}&pageSize=50`;
  try {
    // Warm up both targets (JIT, connection setup) before measuring.
    await runLoad({ url: `${gateway.url}${getPath}`, headers: auth, connections, seconds: 2 });
    await runLoad({ url: `${bare.url}${getPath}`, connections, seconds: 2 });
    // Rounds alternate bare and gateway so a load change on the machine hits both alike; medians are reported.
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const targets: Array<[string, string, string, Record<string, string>]> = [
      ['GET model', 'bare Fastify', `${bare.url}${getPath}`, {}],
      ['GET model', 'gateway', `${gateway.url}${getPath}`, auth],
      ['GET model with 100 deployedModelRefs', 'bare Fastify', `${bare.url}${busyPath}`, {}],
      ['GET model with 100 deployedModelRefs', 'gateway', `${gateway.url}${busyPath}`, auth],
      ['list deployments (filtered)', 'bare Fastify', `${bare.url}${listPath}`, {}],
      ['list deployments (filtered)', 'gateway', `${gateway.url}${listPath}`, auth],
    ];
    const samples: LoadResult[][] = targets.map(() => []);
    for (let round = 0; round < rounds; round += 1) {
      for (const [index, [, , url, headers]] of targets.entries()) samples[index]!.push(await runLoad({ url, headers, connections, seconds }));
    }
    const results: Array<[string, string, LoadResult]> = targets.map(([op, target], i) => [op, target, median(samples[i]!)]);
    for (const [, target, r] of results) if (r.non2xx > 0 || r.errors > 0) throw new Error(`${target}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    const rps = (i: number) => results[i]![2].requestsPerSecond;
    const rows = results.map(([op, target, r], i) => [
      op, target, Math.round(r.requestsPerSecond), r.p50Ms, r.p99Ms,
      i % 2 === 1 ? `${((100 * r.requestsPerSecond) / rps(i - 1)).toFixed(1)}%` : '100%',
    ]);
    console.log(`\ncontrol-plane benchmark: ${connections} connections, ${rounds} alternating rounds of ${seconds} s per target (median shown), Node ${process.version}\n`);
    printTable(['operation', 'target', 'req/s', 'p50 ms', 'p99 ms', 'of bare'], rows);
    const getRatio = rps(1) / rps(0);
    console.log(`\nGET model: gateway at ${(100 * getRatio).toFixed(1)}% of bare Fastify (target ≥ 70%): ${getRatio >= 0.7 ? 'MET' : 'NOT MET'}`);
    console.log(`GET model with 100 deployedModelRefs (no target; the gateway queries 100 records per call): ${((100 * rps(3)) / rps(2)).toFixed(1)}%`);
    return { getRatio, rows };
  } finally {
    await gateway.stop();
    await bare.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runControlPlaneBenchmark();
}
