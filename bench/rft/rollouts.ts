import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import {
  createGateway, createSandboxEvaluatorRunner, parseRlRow, rolloutSampling, runRollouts, sampleSeed, servingDirectoryToken, systemContext, telemetryToken,
  type EvaluatorSpec, type RlRow,
} from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { InferenceProxy } from '@berth/plugin-transport-fastify';
import { startChildServer } from '../lib/child-server.js';
import { benchModel, deployBenchModel, engineRuntime } from '../lib/engine-deployment.js';
import { median, pairedRound } from '../lib/stats.js';

/**
 * bench/rft, rollout half: a reinforcement fine-tuning job's rollouts through the gateway against the same
 * sampling sent straight to the reference engine at the same concurrency.
 *
 * - Engine: the reference engine in its own process, waiting ENGINE_TTFT_MS before each answer (default 20).
 * - Direct (the baseline): `rows × candidates` chat completions (the job's sampling body: the row's messages,
 *   max_tokens, temperature, n 1) posted to the engine by `concurrency` lanes with undici (keep-alive pool,
 *   as the gateway's proxy), each answer parsed.
 * - Gateway: the job's own rollout stage (`runRollouts`, what `RftJobRunner` calls per chunk): each sample
 *   routed by core's serving directory to the deployment's ready replica (gpux runtime, static provisioner →
 *   the engine process) over the transport's `InferenceProxy`, at most `maxConcurrentRollouts` = `concurrency`
 *   at once, then every answer scored by the default evaluator runner (an EXACT_MATCH criterion, in process).
 * Paired rounds, order alternating; the figure is the median of rollouts/s per mode. Target: gateway ≥ 0.9 × direct.
 * Environment: BENCH_ROUNDS (5), BENCH_RFT_ROWS (250), BENCH_RFT_CANDIDATES (4), BENCH_CONCURRENCY (16), ENGINE_TTFT_MS (20).
 */
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const rowCount = Number(process.env.BENCH_RFT_ROWS ?? 250);
const candidates = Number(process.env.BENCH_RFT_CANDIDATES ?? 4);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const engineTtftMs = Number(process.env.ENGINE_TTFT_MS ?? 20);
const maxOutputTokens = 16;

const evaluator: EvaluatorSpec = { criteria: [{ type: 'EXACT_MATCH', name: 'exact', exactMatch: { groundTruthField: 'ground_truth' } }] };

export interface RolloutBenchmarkResult {
  readonly direct: number;
  readonly gateway: number;
  readonly ratio: number;
  readonly rounds: readonly { direct: number; gateway: number }[];
}

export async function runRolloutBenchmark(): Promise<RolloutBenchmarkResult> {
  const engine = await startChildServer(fileURLToPath(new URL('../inference/engine-server.ts', import.meta.url)), [], { ENGINE_TTFT_MS: String(engineTtftMs) });
  const gateway = createGateway({ plugins: [memoryStorage(), apiKeyAuth(), ...engineRuntime(engine.url)], config: { bootstrapAccountId: 'bench', bootstrapApiKey: 'bench-rft-key-00000000000000000' } });
  const evaluators = createSandboxEvaluatorRunner({ workers: 1 });
  // The baseline's client: undici with keep-alive connections, as the gateway's proxy uses (Node's fetch costs
  // several times more per call on this machine, which would flatter the gateway).
  const directAgent = new Agent({ connections: 128 });
  const proxy = new InferenceProxy(gateway.resolve(servingDirectoryToken), {}, gateway.logger, gateway.resolve(telemetryToken));
  try {
    await gateway.start();
    await deployBenchModel(gateway);
    const ctx = systemContext('bench-rft-rollouts');
    const rows: RlRow[] = Array.from({ length: rowCount }, (_, i) =>
      parseRlRow(JSON.stringify({ messages: [{ role: 'user', content: `Prompt ${i}: name a harbor town.` }], ground_truth: 'harbor' }), i),
    );
    const sampling = rolloutSampling({ responseCandidatesCount: candidates, maxOutputTokens, temperature: 1 });
    const target = await gateway.resolve(servingDirectoryToken).resolve(ctx, benchModel);
    const samples = rowCount * candidates;
    const seedBase = 'accounts/bench/reinforcementFineTuningJobs/bench#epoch-1';

    const direct = async (): Promise<number> => {
      let next = 0;
      let failures = 0;
      const started = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < samples; i = next++) {
          const row = rows[Math.floor(i / candidates)]!;
          const response = await request(`${engine.url}/v1/chat/completions`, {
            method: 'POST',
            dispatcher: directAgent,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'reference-model', seed: sampleSeed(seedBase, row.index, i % candidates), messages: row.row.messages, max_tokens: maxOutputTokens, temperature: 1, n: 1 }),
          });
          // Parsed, as the gateway parses each answer to read its text and usage.
          const answer = (await response.body.json()) as { choices?: { message?: { content?: string } }[] };
          if (response.statusCode !== 200 || typeof answer.choices?.[0]?.message?.content !== 'string') failures += 1;
        }
      }));
      if (failures > 0) throw new Error(`${failures} direct samples failed`);
      return samples / ((performance.now() - started) / 1000);
    };
    const throughGateway = async (): Promise<number> => {
      const started = performance.now();
      const { counts } = await runRollouts(ctx, {
        client: proxy, target, sampling, evaluators, evaluator, maxConcurrentRollouts: concurrency, maxConcurrentEvaluations: 8, seedBase,
      }, rows);
      if (counts.rollouts !== samples || counts.scored !== samples) throw new Error(`gateway: ${counts.scored} of ${counts.rollouts} rollouts scored, expected ${samples}`);
      return samples / ((performance.now() - started) / 1000);
    };

    await direct();
    await throughGateway();
    const measured: { direct: number; gateway: number }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const pair = { direct: 0, gateway: 0 };
      await pairedRound(round, async () => void (pair.direct = await direct()), async () => void (pair.gateway = await throughGateway()));
      measured.push(pair);
    }
    const d = median(measured.map((m) => m.direct));
    const g = median(measured.map((m) => m.gateway));
    return { direct: d, gateway: g, ratio: g / d, rounds: measured };
  } finally {
    await proxy.close();
    await directAgent.close();
    await evaluators.close();
    await gateway.stop();
    await engine.stop();
  }
}
