import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { cpuMicros, printTable } from '../lib/load.js';
import { median, pairedRound } from '../lib/stats.js';
import { measureLatency, measureTtft, type LatencyResult, type Target } from '../inference/latency-client.js';
import { chainPool, chatChain, responseChain, slopePerStep, type ChainTarget } from './chain.js';

/**
 * bench/responses: what the Responses API adds over the chat completion it sends to the engine.
 * Processes (loopback only): the reference engine answering instantly; the gateway on memory storage and
 * the gateway on PostgreSQL, both routing to that engine (`bench/inference/gateway-server.ts`).
 *
 * - Non-streaming: `POST /inference/v1/responses` (one user message, max_output_tokens 8, stored) against
 *   the equivalent chat completion sent straight to the engine: sequential requests on one keep-alive
 *   connection, added p50 and p99.
 * - Streaming: time to the first `response.output_text.delta` against the first content chunk of the
 *   engine's own stream.
 * - A 10-turn previous_response_id chain on PostgreSQL against the same growing conversation sent as chat
 *   completions, straight to the engine and through the same gateway's chat route (which pays the routing
 *   reads a response pays too): response minus gateway chat is what the Responses path itself adds per
 *   turn (the lookup of the stored conversation, the write of the longer one, the translation). How that
 *   grows with the chain's length is measured against a control of the same shape whose turns all continue
 *   its first one (the same lookups and writes, a conversation that never grows): the slope of chain minus
 *   control over the turns. The chain on memory is shown beside.
 *
 * Targets: added p50 ≤ 2 ms (non-streaming), added time to first token ≤ 5 ms. Method: paired rounds (the
 * baseline and the gateway back to back, order alternating) so the machine's drift hits both sides of a
 * pair; the reported figure is the median of the per-round differences, with their range.
 *
 * Environment: BENCH_ROUNDS (11), BENCH_SECONDS per side per round (1), BENCH_TTFT_REQUESTS per side per
 * round (60), BENCH_CHAINS (50), DATABASE_URL (postgres://postgres@127.0.0.1:5432/test; a fresh schema is
 * created and dropped).
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 11);
const seconds = Number(process.env.BENCH_SECONDS ?? 1);
const ttftRequests = Number(process.env.BENCH_TTFT_REQUESTS ?? 60);
const chains = Number(process.env.BENCH_CHAINS ?? 50);
const chainTurns = 10;
const maxTokens = 8;
const input = 'Hello there, how are you?';
const TARGET_ADDED_P50_US = 2000;
const TARGET_ADDED_TTFT_US = 5000;
const responsesFirstToken = Buffer.from('response.output_text.delta');

export interface ResponsesBenchmarkResult {
  readonly addedP50Us: number;
  readonly addedP99Us: number;
  readonly addedTtftUs: number;
  /** µs per turn of chain length on PostgreSQL: the slope of chain minus fixed-length control over turns 1–10. */
  readonly postgresGrowthUsPerTurn: number;
}

interface Paired {
  readonly baseline: LatencyResult[];
  readonly subject: LatencyResult[];
  /** Gateway CPU time per request in each round (µs). */
  readonly gatewayCpuUs: number[];
}

/** Rounds of baseline and subject back to back, which one first alternating. */
async function pairedRounds(measure: (target: Target) => Promise<LatencyResult>, baseline: Target, subject: Target, gatewayPid: number): Promise<Paired> {
  const paired: Paired = { baseline: [], subject: [], gatewayCpuUs: [] };
  const measureSubject = async () => {
    const before = cpuMicros(gatewayPid);
    const result = await measure(subject);
    const after = cpuMicros(gatewayPid);
    paired.subject.push(result);
    paired.gatewayCpuUs.push(before === undefined || after === undefined ? Number.NaN : (after - before) / result.requests);
  };
  const measureBaseline = async () => void paired.baseline.push(await measure(baseline));
  for (let round = 0; round < rounds; round += 1) await pairedRound(round, measureBaseline, measureSubject);
  for (const r of [...paired.baseline, ...paired.subject]) if (r.failures > 0) throw new Error(`${r.failures} failed requests`);
  return paired;
}

const us = (value: number) => (Number.isFinite(value) ? String(Math.round(value)) : 'n/a');
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

/** Median of the per-round differences subject − baseline of one statistic, with its range. */
function added(paired: Paired, statistic: (r: LatencyResult) => number): { median: number; range: string } {
  const differences = paired.subject.map((s, i) => statistic(s) - statistic(paired.baseline[i]!));
  return { median: median(differences), range: `${us(Math.min(...differences))} … ${us(Math.max(...differences))}` };
}

async function withDatabase<T>(databaseUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export async function runResponsesBenchmark(): Promise<ResponsesBenchmarkResult> {
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `berth_bench_responses_${Date.now().toString(36)}`;
  const children: ChildServer[] = [];
  const closers: Array<() => Promise<void>> = [];
  const loadBefore = loadavg();
  try {
    const engine = await startChildServer(here('../inference/engine-server.ts'));
    children.push(engine);
    const memoryGateway = await startChildServer(here('../inference/gateway-server.ts'), [engine.url, 'memory']);
    children.push(memoryGateway);
    const postgresGateway = await startChildServer(here('../inference/gateway-server.ts'), [engine.url, 'postgres'], { DATABASE_URL: databaseUrl, BENCH_SCHEMA: schema });
    children.push(postgresGateway);
    const info = memoryGateway.info as { apiKey: string; model: string };
    const auth = { authorization: `Bearer ${info.apiKey}` };

    // The chat completion the gateway sends the engine for this response (turn-loop's body), sent directly.
    const chatBody = (stream: boolean) => JSON.stringify({
      model: 'reference-model', messages: [{ role: 'user', content: input }], temperature: 1, top_p: 1, max_tokens: maxTokens,
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
    const responseBody = (stream: boolean) => JSON.stringify({ model: info.model, input, max_output_tokens: maxTokens, ...(stream ? { stream: true } : {}) });
    const direct: Target = { name: 'engine (direct chat completion)', url: engine.url, path: '/v1/chat/completions', headers: {}, body: chatBody(false), streamBody: chatBody(true) };
    const responses: Target = { name: 'gateway (response)', url: memoryGateway.url, path: '/inference/v1/responses', headers: auth, body: responseBody(false), streamBody: responseBody(true) };
    const chainTargets = {
      direct: { pool: chainPool(engine.url), chatPath: '/v1/chat/completions', headers: {}, model: 'reference-model' },
      postgresChat: { pool: chainPool(postgresGateway.url), chatPath: '/inference/v1/chat/completions', headers: auth, model: info.model },
      postgres: { pool: chainPool(postgresGateway.url), chatPath: '/inference/v1/chat/completions', headers: auth, model: info.model },
      postgresFixed: { pool: chainPool(postgresGateway.url), chatPath: '/inference/v1/chat/completions', headers: auth, model: info.model },
      memory: { pool: chainPool(memoryGateway.url), chatPath: '/inference/v1/chat/completions', headers: auth, model: info.model },
    } satisfies Record<string, ChainTarget>;
    closers.push(...Object.values(chainTargets).map((t) => () => t.pool.close()));

    // Warm up every path (JIT, keep-alive pools, the PostgreSQL connection pool).
    for (const target of [direct, responses]) {
      await measureLatency(target, 1, 1);
      await measureTtft(target, 30, target === direct ? undefined : responsesFirstToken);
    }
    const { texts } = await responseChain(chainTargets.postgres, chainTurns);
    const sides = ['direct', 'postgresChat', 'postgres', 'postgresFixed', 'memory'] as const;
    const runSide = async (side: (typeof sides)[number]) =>
      side === 'direct' || side === 'postgresChat'
        ? chatChain(chainTargets[side], texts)
        : (await responseChain(chainTargets[side], chainTurns, side === 'postgresFixed')).micros;
    for (let i = 0; i < 3; i += 1) for (const side of sides) await runSide(side);

    const latency = await pairedRounds((t) => measureLatency(t, 1, seconds), direct, responses, memoryGateway.pid);
    const ttft = await pairedRounds((t) => measureTtft(t, ttftRequests, t === direct ? undefined : responsesFirstToken), direct, responses, memoryGateway.pid);

    // Chains: per repetition every side back to back, the order rotating.
    const turnTimes: Record<(typeof sides)[number], number[][]> = { direct: [], postgresChat: [], postgres: [], postgresFixed: [], memory: [] };
    for (let rep = 0; rep < chains; rep += 1) {
      for (let k = 0; k < sides.length; k += 1) {
        const side = sides[(rep + k) % sides.length]!;
        turnTimes[side].push(await runSide(side));
      }
    }
    const loadAfter = loadavg();

    const medianAt = (runs: number[][], turn: number) => median(runs.map((r) => r[turn]!));
    // Paired per repetition: each chain against the baseline chain of the same repetition.
    const addedAt = (runs: number[][], baseline: number[][], turn: number) => median(runs.map((r, rep) => r[turn]! - baseline[rep]![turn]!));
    const turns = Array.from({ length: chainTurns }, (_, turn) => turn);
    const addedPostgres = turns.map((turn) => addedAt(turnTimes.postgres, turnTimes.direct, turn));
    const ownPostgres = turns.map((turn) => addedAt(turnTimes.postgres, turnTimes.postgresChat, turn));
    const lengthAdded = turns.map((turn) => addedAt(turnTimes.postgres, turnTimes.postgresFixed, turn));
    const addedMemory = turns.map((turn) => addedAt(turnTimes.memory, turnTimes.direct, turn));
    // Growth: the slope of each chain's own differences over its turns, then the median over chains.
    const growth = (runs: number[][], baseline: number[][]) => {
      const slopes = runs.map((r, rep) => slopePerStep(r.map((micros, turn) => micros - baseline[rep]![turn]!))).sort((a, b) => a - b);
      return { median: median(slopes), quartiles: `${us(slopes[Math.floor(slopes.length / 4)]!)} … ${us(slopes[Math.floor((3 * slopes.length) / 4)]!)}` };
    };
    const lengthGrowth = growth(turnTimes.postgres, turnTimes.postgresFixed);
    const ownGrowth = growth(turnTimes.postgres, turnTimes.postgresChat);
    const memoryGrowth = growth(turnTimes.memory, turnTimes.direct);

    const p50 = added(latency, (r) => r.p50Us);
    const p99 = added(latency, (r) => r.p99Us);
    const first = added(ttft, (r) => r.p50Us);
    const result: ResponsesBenchmarkResult = {
      addedP50Us: p50.median,
      addedP99Us: p99.median,
      addedTtftUs: first.median,
      postgresGrowthUsPerTurn: lengthGrowth.median,
    };

    const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');
    console.log(`\nresponses benchmark: max_output_tokens ${maxTokens}, instant engine; ${rounds} paired rounds (${seconds} s per side for latency, ${ttftRequests} streams per side for first token), ${chains} chains of ${chainTurns} turns; Node ${process.version}`);
    console.log(`load average before ${load(loadBefore)}, after ${load(loadAfter)} (2 CPUs: above 2 means other work competed for them)\n`);
    const medianOf = (runs: LatencyResult[], statistic: (r: LatencyResult) => number) => us(median(runs.map(statistic)));
    printTable(
      ['measure', 'engine direct µs', 'gateway µs', 'added µs (median of rounds)', 'range over rounds', 'gateway CPU µs/req', 'target', 'result'],
      [
        ['non-streaming p50', medianOf(latency.baseline, (r) => r.p50Us), medianOf(latency.subject, (r) => r.p50Us), us(p50.median), p50.range, us(median(latency.gatewayCpuUs)), `≤ ${TARGET_ADDED_P50_US}`, verdict(p50.median <= TARGET_ADDED_P50_US)],
        ['non-streaming p99', medianOf(latency.baseline, (r) => r.p99Us), medianOf(latency.subject, (r) => r.p99Us), us(p99.median), p99.range, '', '', ''],
        ['time to first token p50', medianOf(ttft.baseline, (r) => r.p50Us), medianOf(ttft.subject, (r) => r.p50Us), us(first.median), first.range, us(median(ttft.gatewayCpuUs)), `≤ ${TARGET_ADDED_TTFT_US}`, verdict(first.median <= TARGET_ADDED_TTFT_US)],
        ['time to first token p99', medianOf(ttft.baseline, (r) => r.p99Us), medianOf(ttft.subject, (r) => r.p99Us), us(added(ttft, (r) => r.p99Us).median), added(ttft, (r) => r.p99Us).range, '', '', ''],
      ],
    );
    console.log(`\nprevious_response_id chain, ${chainTurns} turns, median over ${chains} chains; differences are paired per chain: response − engine direct ("added"), response − chat completion through the same PostgreSQL gateway (what the Responses path itself adds), response − the fixed-length control (whose turns all continue its first: what the chain's length adds)\n`);
    printTable(
      ['turn', 'engine direct µs', 'PG gateway chat µs', 'PG response µs', 'PG fixed-length µs', 'memory response µs', 'PG added µs', 'PG response − PG chat µs', 'PG response − fixed µs', 'memory added µs'],
      turns.map((turn) => [
        turn + 1, us(medianAt(turnTimes.direct, turn)), us(medianAt(turnTimes.postgresChat, turn)), us(medianAt(turnTimes.postgres, turn)),
        us(medianAt(turnTimes.postgresFixed, turn)), us(medianAt(turnTimes.memory, turn)),
        us(addedPostgres[turn]!), us(ownPostgres[turn]!), us(lengthAdded[turn]!), us(addedMemory[turn]!),
      ]),
    );
    console.log(`\ngrowth with chain length, µs per turn (least-squares slope of each chain's differences over turns 1–${chainTurns}; median over chains, interquartile range):`);
    console.log(`  PostgreSQL, chain − fixed-length control (the lookup and write of a longer conversation): ${us(lengthGrowth.median)} (${lengthGrowth.quartiles})`);
    console.log(`  PostgreSQL, response − gateway chat: ${us(ownGrowth.median)} (${ownGrowth.quartiles}); memory, response − engine direct: ${us(memoryGrowth.median)} (${memoryGrowth.quartiles})`);
    console.log(`\nadded p50 (non-streaming): ${us(result.addedP50Us)} µs (target ≤ ${TARGET_ADDED_P50_US}): ${verdict(result.addedP50Us <= TARGET_ADDED_P50_US)}`);
    console.log(`added time to first token (p50): ${us(result.addedTtftUs)} µs (target ≤ ${TARGET_ADDED_TTFT_US}): ${verdict(result.addedTtftUs <= TARGET_ADDED_TTFT_US)}`);
    console.log(`per-round added p50 (non-streaming): ${latency.subject.map((s, i) => us(s.p50Us - latency.baseline[i]!.p50Us)).join(', ')}`);
    console.log(`per-round added time to first token: ${ttft.subject.map((s, i) => us(s.p50Us - ttft.baseline[i]!.p50Us)).join(', ')}`);
    return result;
  } finally {
    for (const close of closers) await close();
    for (const child of children.reverse()) await child.stop();
    await withDatabase(databaseUrl, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runResponsesBenchmark();
}
