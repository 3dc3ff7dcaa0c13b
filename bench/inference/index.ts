import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { printTable } from '../lib/load.js';
import { measureLatency, measureTtft, type LatencyResult, type Target } from './latency-client.js';

/**
 * bench/inference: the cost the gateway adds to an inference call. Three targets, each in its own
 * process, loopback only, bounded time: (a) the reference engine called directly, (b) a bare Fastify +
 * undici pass-through proxy, (c) the gateway (memory storage, API-key auth, a ServingDirectory pointing
 * at the engine). The engine answers instantly, with a small max_tokens, so the numbers are overhead.
 *
 * Targets: added latency (gateway − engine) p50 ≤ 1 ms and p99 ≤ 3 ms at concurrency 1; added time to
 * first streamed token ≤ 5 ms; at concurrency 16 the gateway serves ≥ 50% of the bare proxy's rate and
 * ≥ 3,000 requests per second.
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const ttftRequests = Number(process.env.BENCH_TTFT_REQUESTS ?? 500);
const messages = [{ role: 'user', content: 'Hello there, how are you?' }];
const maxTokens = 8;

async function throughput(target: Target, connections: number, duration: number): Promise<{ rps: number; non2xx: number; errors: number }> {
  const result = await autocannon({
    url: `${target.url}${target.path}`,
    method: 'POST',
    body: target.body,
    headers: { ...target.headers, 'content-type': 'application/json' },
    connections,
    duration,
    pipelining: 1,
  });
  return { rps: result.requests.average, non2xx: result.non2xx, errors: result.errors };
}

const us = (value: number) => (Number.isFinite(value) ? Math.round(value) : 'n/a');
const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

export interface InferenceBenchmarkResult {
  readonly addedP50C1Us: number;
  readonly addedP99C1Us: number;
  readonly addedTtftUs: number;
  readonly gatewayRps: number;
  readonly proxyRps: number;
}

export async function runInferenceBenchmark(): Promise<InferenceBenchmarkResult> {
  const children: ChildServer[] = [];
  try {
    const engine = await startChildServer(here('./engine-server.ts'));
    children.push(engine);
    const proxy = await startChildServer(here('./bare-proxy-server.ts'), [engine.url]);
    children.push(proxy);
    const gateway = await startChildServer(here('./gateway-server.ts'), [engine.url]);
    children.push(gateway);
    const info = gateway.info as { apiKey: string; model: string; directory: string };

    const body = (model: string, stream: boolean) => JSON.stringify({ model, messages, max_tokens: maxTokens, ...(stream ? { stream: true } : {}) });
    const targets: Target[] = [
      { name: 'engine (direct)', url: engine.url, path: '/v1/chat/completions', headers: {}, body: body('reference-model', false), streamBody: body('reference-model', true) },
      { name: 'bare proxy', url: proxy.url, path: '/v1/chat/completions', headers: {}, body: body('reference-model', false), streamBody: body('reference-model', true) },
      {
        name: 'gateway', url: gateway.url, path: '/inference/v1/chat/completions', headers: { authorization: `Bearer ${info.apiKey}` },
        body: body(info.model, false), streamBody: body(info.model, true),
      },
    ];
    const [direct, bare, gw] = targets as [Target, Target, Target];

    // Warm up every path (JIT, keep-alive pools) before measuring.
    for (const target of targets) {
      const warm = await throughput(target, 16, 2);
      if (warm.non2xx > 0 || warm.errors > 0) throw new Error(`${target.name}: ${warm.non2xx} non-2xx answers, ${warm.errors} errors during warm-up`);
      await measureTtft(target, 50);
    }

    const latency = new Map<string, { c1: LatencyResult; c16: LatencyResult; ttft: LatencyResult; rps: number }>();
    for (const target of targets) {
      const c1 = await measureLatency(target, 1, seconds);
      const c16 = await measureLatency(target, 16, seconds);
      const ttft = await measureTtft(target, ttftRequests);
      const load = await throughput(target, 16, seconds);
      for (const r of [c1, c16, ttft]) if (r.failures > 0) throw new Error(`${target.name}: ${r.failures} failed requests`);
      if (load.non2xx > 0 || load.errors > 0) throw new Error(`${target.name}: ${load.non2xx} non-2xx answers, ${load.errors} errors`);
      latency.set(target.name, { c1, c16, ttft, rps: load.rps });
    }
    const d = latency.get(direct.name)!;
    const b = latency.get(bare.name)!;
    const g = latency.get(gw.name)!;

    console.log(`\ninference benchmark: chat completions, max_tokens ${maxTokens}, instant engine; ${seconds} s per latency/throughput run, ${ttftRequests} sequential streams for TTFT; Node ${process.version}`);
    console.log(`gateway serving directory: ${info.directory}\n`);
    printTable(
      ['target', 'p50 µs c=1', 'p99 µs c=1', 'p50 µs c=16', 'p99 µs c=16', 'TTFT p50 µs', 'TTFT p99 µs', 'req/s c=16'],
      [direct, bare, gw].map((t) => {
        const r = latency.get(t.name)!;
        return [t.name, us(r.c1.p50Us), us(r.c1.p99Us), us(r.c16.p50Us), us(r.c16.p99Us), us(r.ttft.p50Us), us(r.ttft.p99Us), Math.round(r.rps)];
      }),
    );
    const added = (get: (r: typeof d) => number) => [get(b) - get(d), get(g) - get(d)] as const;
    console.log('');
    printTable(
      ['added over engine', 'p50 µs c=1', 'p99 µs c=1', 'p50 µs c=16', 'p99 µs c=16', 'TTFT p50 µs'],
      [
        ['bare proxy', ...[added((r) => r.c1.p50Us)[0], added((r) => r.c1.p99Us)[0], added((r) => r.c16.p50Us)[0], added((r) => r.c16.p99Us)[0], added((r) => r.ttft.p50Us)[0]].map(us)],
        ['gateway', ...[added((r) => r.c1.p50Us)[1], added((r) => r.c1.p99Us)[1], added((r) => r.c16.p50Us)[1], added((r) => r.c16.p99Us)[1], added((r) => r.ttft.p50Us)[1]].map(us)],
      ],
    );
    const result: InferenceBenchmarkResult = {
      addedP50C1Us: g.c1.p50Us - d.c1.p50Us,
      addedP99C1Us: g.c1.p99Us - d.c1.p99Us,
      addedTtftUs: g.ttft.p50Us - d.ttft.p50Us,
      gatewayRps: g.rps,
      proxyRps: b.rps,
    };
    console.log('');
    console.log(`added p50 at c=1: ${us(result.addedP50C1Us)} µs (target ≤ 1000): ${verdict(result.addedP50C1Us <= 1000)}`);
    console.log(`added p99 at c=1: ${us(result.addedP99C1Us)} µs (target ≤ 3000): ${verdict(result.addedP99C1Us <= 3000)}`);
    console.log(`added TTFT (p50): ${us(result.addedTtftUs)} µs (target ≤ 5000): ${verdict(result.addedTtftUs <= 5000)}`);
    const ratio = result.gatewayRps / result.proxyRps;
    console.log(`gateway req/s at c=16: ${(100 * ratio).toFixed(1)}% of the bare proxy (target ≥ 50%): ${verdict(ratio >= 0.5)}`);
    console.log(`gateway req/s at c=16: ${Math.round(result.gatewayRps)} (target ≥ 3000): ${verdict(result.gatewayRps >= 3000)}`);
    return result;
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runInferenceBenchmark();
}
