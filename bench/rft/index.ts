import { cpus, loadavg } from 'node:os';
import { createSandboxEvaluatorRunner, systemContext, type EvaluationRequest, type EvaluatorSpec } from '@berth/core';
import { printTable } from '../lib/load.js';
import { median, pairedRound, percent } from '../lib/stats.js';
import { runRolloutBenchmark, type RolloutBenchmarkResult } from './rollouts.js';

/**
 * bench/rft: what reinforcement fine-tuning's parts cost. This first part measures evaluator calls per
 * second for a trivial JavaScript criterion through the default `EvaluatorRunner` (a warm sandbox
 * process, a fresh `vm` context per call, JSON over a pipe) against calling the same function in this
 * process: the sandbox's overhead per call. The second part (rollouts.ts) measures a job's rollout
 * throughput through the gateway against the same sampling sent straight to the reference engine.
 *
 * Method: paired rounds (in-process and sandbox back to back, order alternating); per round
 * BENCH_EVALUATOR_CALLS calls per mode; the figure per mode is the median over rounds of calls/s.
 * Modes: in-process (the function called directly on a parsed row), sandbox one at a time (`score`,
 * sequential: the latency of one call), sandbox `scoreMany` with concurrency 2 and 8 (2 warm processes).
 * Environment: BENCH_ROUNDS (5), BENCH_EVALUATOR_CALLS (400).
 */
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const callsPerRound = Number(process.env.BENCH_EVALUATOR_CALLS ?? 400);

const source = 'export function evaluate(input) { return input.answer.trim() === input.groundTruth ? 1 : 0; }';
const evaluator: EvaluatorSpec = { criteria: [{ type: 'CODE_SNIPPETS', name: 'exact', codeSnippets: { language: 'javascript', fileContents: { 'main.js': source } } }] };
const inProcess = (input: { answer: string; groundTruth: string }): number => (input.answer.trim() === input.groundTruth ? 1 : 0);

const requests: EvaluationRequest[] = Array.from({ length: callsPerRound }, (_, i) => ({
  row: { messages: [{ role: 'user', content: `What is ${i} + ${i}?` }], ground_truth: String(2 * i) },
  answer: { text: String(i % 3 === 0 ? 2 * i + 1 : 2 * i) },
}));

export interface RftBenchmarkResult {
  /** Median calls per second over rounds, by mode. */
  readonly callsPerSecond: Readonly<Record<string, number>>;
  /** Added wall time of one sequential sandbox call over the in-process call, µs. */
  readonly addedUsPerCall: number;
  readonly rollouts: RolloutBenchmarkResult;
}

export async function runRftBenchmark(): Promise<RftBenchmarkResult> {
  const loadBefore = loadavg();
  const runner = createSandboxEvaluatorRunner({ workers: 2, concurrency: 8 });
  const ctx = systemContext('bench-rft');
  const rates: Record<string, number[]> = { 'in-process': [], 'sandbox, one at a time': [], 'sandbox, scoreMany ×2': [], 'sandbox, scoreMany ×8': [] };
  let checksum = 0;
  try {
    // Warm-up: the sandbox processes start, TypeScript loads, the criterion compiles once.
    const warm = await runner.scoreMany(ctx, evaluator, requests.slice(0, 20), { concurrency: 2 });
    if (warm.some((o) => o.status !== 'scored')) throw new Error(`warm-up failed: ${JSON.stringify(warm.find((o) => o.status !== 'scored'))}`);
    const expected = requests.filter((r) => r.answer.text.trim() === r.row.ground_truth).length;
    const timedRate = async (mode: string, run: () => Promise<number>) => {
      const start = process.hrtime.bigint();
      const total = await run();
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (total !== expected) throw new Error(`${mode}: scored ${total}, expected ${expected}`);
      rates[mode]!.push(requests.length / seconds);
      checksum += total;
    };
    const direct = () => timedRate('in-process', async () => {
      let total = 0;
      for (const r of requests) total += inProcess(JSON.parse(JSON.stringify({ answer: r.answer.text, groundTruth: r.row.ground_truth })) as { answer: string; groundTruth: string });
      return total;
    });
    const sandboxed = async () => {
      await timedRate('sandbox, one at a time', async () => {
        let total = 0;
        for (const r of requests) {
          const outcome = await runner.score(ctx, evaluator, r);
          total += outcome.status === 'scored' ? outcome.score : 0;
        }
        return total;
      });
      for (const concurrency of [2, 8]) {
        await timedRate(`sandbox, scoreMany ×${concurrency}`, async () => {
          const outcomes = await runner.scoreMany(ctx, evaluator, requests, { concurrency });
          return outcomes.reduce((sum, o) => sum + (o.status === 'scored' ? o.score : 0), 0);
        });
      }
    };
    for (let round = 0; round < rounds; round += 1) await pairedRound(round, direct, sandboxed);
  } finally {
    await runner.close();
  }
  const loadAfter = loadavg();
  const callsPerSecond: Record<string, number> = {};
  const direct = median(rates['in-process']!);
  const rows = Object.entries(rates).map(([mode, samples]) => {
    const rate = median(samples);
    callsPerSecond[mode] = rate;
    return [
      mode,
      Math.round(rate),
      `${Math.round(Math.min(...samples))}–${Math.round(Math.max(...samples))}`,
      (1e6 / rate).toFixed(1),
      mode === 'in-process' ? '—' : (1e6 / rate - 1e6 / direct).toFixed(1),
    ];
  });
  console.log(`\nbench/rft — evaluator calls per second, trivial JavaScript criterion (${rounds} paired rounds × ${callsPerRound} calls; ${cpus().length} CPUs; checksum ${checksum})`);
  printTable(['mode', 'calls/s (median)', 'range over rounds', 'µs/call', 'added µs/call vs in-process'], rows);
  console.log(`load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`);
  const rolloutLoadBefore = loadavg();
  const rollouts = await runRolloutBenchmark();
  const rolloutLoadAfter = loadavg();
  console.log(`\nbench/rft — rollouts per second, through the gateway (the job's rollout stage) against straight to the reference engine, same concurrency (${rollouts.rounds.length} paired rounds; target gateway ≥ 90% of direct)`);
  printTable(
    ['round', 'direct rollouts/s', 'gateway rollouts/s', 'gateway / direct'],
    [
      ...rollouts.rounds.map((r, i) => [String(i + 1), r.direct.toFixed(0), r.gateway.toFixed(0), percent(r.gateway / r.direct)]),
      ['median', rollouts.direct.toFixed(0), rollouts.gateway.toFixed(0), `${percent(rollouts.ratio)} — target ≥ 90%: ${rollouts.ratio >= 0.9 ? 'MET' : 'MISSED'}`],
    ],
  );
  console.log(`load average before ${rolloutLoadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${rolloutLoadAfter.map((l) => l.toFixed(2)).join(' ')}`);
  return { callsPerSecond, addedUsPerCall: 1e6 / callsPerSecond['sandbox, one at a time']! - 1e6 / direct, rollouts };
}
