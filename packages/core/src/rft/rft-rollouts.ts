/**
 * Rollouts of a reinforcement fine-tuning job: each prompt sampled `responseCandidatesCount` times through
 * the serving layer (the routing chat completions take), at most `maxConcurrentRollouts` at once, then
 * every answer scored by the evaluator (`maxConcurrentEvaluations` at once). A sample the model refuses or
 * an evaluation that fails is a failed rollout; it takes no part in the training step.
 */
import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { Code, isGatewayError } from '../errors/index.js';
import type { EvaluatorRunner, EvaluatorSpec } from '../ports/evaluator-runner.js';
import type { ModelTarget } from '../ports/serving-directory.js';
import type { TrainingGroup, TrainingRollout } from '../ports/trainer.js';
import type { ChatModelClient } from '../responses/model-client.js';
import { sleepUnlessAborted } from '../workers/job-stops.js';
import type { RlRow } from './rft-dataset.js';

/** Sampling of the job's rollouts (its `inferenceParameters`, with defaults). */
export interface RolloutSampling {
  readonly candidates: number;
  readonly maxOutputTokens: number;
  readonly temperature: number;
  readonly topP?: number;
  readonly topK?: number;
  /** `inferenceParameters.extraBody`, parsed: merged into every request. */
  readonly extraBody?: JsonObject;
}

/** Defaults: 4 candidates (a group needs at least two to compare), 256 output tokens, temperature 1. */
export const rolloutDefaults = { candidates: 4, maxOutputTokens: 256, temperature: 1, maxConcurrentRollouts: 16, maxConcurrentEvaluations: 8 } as const;

/** Counts of a batch of rollouts, added to the job's progress. */
export interface RolloutCounts {
  rollouts: number;
  scored: number;
  failed: number;
  inputTokens: number;
  outputTokens: number;
  rewardSum: number;
}

export function emptyRolloutCounts(): RolloutCounts {
  return { rollouts: 0, scored: 0, failed: 0, inputTokens: 0, outputTokens: 0, rewardSum: 0 };
}

/** Samples the model gives: the answer, or why there is none. */
type Sample = { readonly ok: true; readonly text: string; readonly promptTokens: number; readonly completionTokens: number } | { readonly ok: false; readonly reason: string };

/** Runs `work` over `items`, at most `limit` at once; results in input order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, lane));
  return results;
}

/** Parses `inferenceParameters` into the sampling of the rollouts (INVALID_ARGUMENT text for a bad extraBody). */
export function rolloutSampling(parameters: {
  responseCandidatesCount?: number; maxOutputTokens?: number; temperature?: number; topP?: number; topK?: number; extraBody?: string;
} | undefined): RolloutSampling {
  const p = parameters ?? {};
  let extraBody: JsonObject | undefined;
  if (p.extraBody !== undefined && p.extraBody.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(p.extraBody);
    } catch {
      throw new Error('inferenceParameters.extraBody is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('inferenceParameters.extraBody must be a JSON object');
    extraBody = parsed as JsonObject;
  }
  return {
    candidates: p.responseCandidatesCount ?? rolloutDefaults.candidates,
    maxOutputTokens: p.maxOutputTokens ?? rolloutDefaults.maxOutputTokens,
    temperature: p.temperature ?? rolloutDefaults.temperature,
    ...(p.topP !== undefined ? { topP: p.topP } : {}),
    ...(p.topK !== undefined && p.topK > 0 ? { topK: p.topK } : {}),
    ...(extraBody ? { extraBody } : {}),
  };
}

/** Transient answers of the serving layer, retried. */
const transientStatuses: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
const transientCodes: ReadonlySet<Code> = new Set([Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED, Code.RESOURCE_EXHAUSTED]);

/**
 * The seed of one sample: from the run's seed base (the job and step), the row and the candidate, so the
 * candidates of a prompt differ (an engine that is deterministic per seed still gives a group to compare)
 * and a repeated chunk samples the same way. `extraBody` may set its own.
 */
export function sampleSeed(seedBase: string, rowIndex: number, candidate: number): number {
  return Number.parseInt(createHash('sha256').update(`${seedBase}\u0000${rowIndex}\u0000${candidate}`).digest('hex').slice(0, 8), 16) & 0x7fffffff;
}

async function sample(ctx: RequestContext, client: ChatModelClient, target: ModelTarget, row: RlRow, sampling: RolloutSampling, retries: number, seed: number): Promise<Sample> {
  const body: JsonObject = {
    seed,
    ...(sampling.extraBody ?? {}),
    messages: row.row.messages,
    max_tokens: sampling.maxOutputTokens,
    temperature: sampling.temperature,
    ...(sampling.topP !== undefined ? { top_p: sampling.topP } : {}),
    ...(sampling.topK !== undefined ? { top_k: sampling.topK } : {}),
    n: 1,
  };
  for (let attempt = 0; ; attempt += 1) {
    try {
      const outcome = await client.complete(ctx, { target, body });
      if (!outcome.ok) {
        if (transientStatuses.has(outcome.status) && attempt < retries) {
          await sleepUnlessAborted(100 * 2 ** attempt, ctx.signal);
          continue;
        }
        return { ok: false, reason: `the model answered ${outcome.status}: ${outcome.error.message}` };
      }
      const choice = (outcome.completion.choices as JsonObject[] | undefined)?.[0];
      const content = (choice?.message as JsonObject | undefined)?.content;
      const usage = outcome.completion.usage as JsonObject | undefined;
      return {
        ok: true,
        text: typeof content === 'string' ? content : '',
        promptTokens: numberOf(usage?.prompt_tokens),
        completionTokens: numberOf(usage?.completion_tokens),
      };
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      if (isGatewayError(error) && transientCodes.has(error.code) && attempt < retries) {
        await sleepUnlessAborted(100 * 2 ** attempt, ctx.signal);
        continue;
      }
      // The serving layer is gone (no replica in time, again and again): the chunk is retried, not failed row by row.
      if (isGatewayError(error) && transientCodes.has(error.code)) throw error;
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }
}

export interface RolloutRun {
  readonly client: ChatModelClient;
  readonly target: ModelTarget;
  readonly sampling: RolloutSampling;
  readonly evaluators: EvaluatorRunner;
  readonly evaluator: EvaluatorSpec;
  readonly maxConcurrentRollouts: number;
  readonly maxConcurrentEvaluations: number;
  /** Retries of a sample after a transient answer. Default 3. */
  readonly retries?: number;
  /** What the samples' seeds derive from (see {@link sampleSeed}), e.g. the job's name and step. */
  readonly seedBase: string;
}

/**
 * Samples and scores the rollouts of `rows`: one group per row, with its rollouts in sampling order.
 * Throws only when the serving layer stays unavailable or `ctx.signal` aborts.
 */
export async function runRollouts(ctx: RequestContext, run: RolloutRun, rows: readonly RlRow[]): Promise<{ groups: TrainingGroup[]; counts: RolloutCounts }> {
  const jobs = rows.flatMap((row) => Array.from({ length: run.sampling.candidates }, () => row));
  const samples = await mapLimited(jobs, run.maxConcurrentRollouts, (row, i) =>
    sample(ctx, run.client, run.target, row, run.sampling, run.retries ?? 3, sampleSeed(run.seedBase, row.index, i % run.sampling.candidates)));
  const answered = samples.flatMap((s, i) => (s.ok ? [{ index: i, text: s.text }] : []));
  const outcomes = await run.evaluators.scoreMany(ctx, run.evaluator, answered.map((a) => ({ row: jobs[a.index]!.row, answer: { text: a.text } })), {
    concurrency: run.maxConcurrentEvaluations,
  });
  const rewards = new Map<number, number>();
  answered.forEach((a, i) => {
    const outcome = outcomes[i];
    if (outcome?.status === 'scored') rewards.set(a.index, outcome.score);
  });
  const counts = emptyRolloutCounts();
  const groups: TrainingGroup[] = rows.map((row, r) => {
    const rollouts: TrainingRollout[] = [];
    for (let c = 0; c < run.sampling.candidates; c += 1) {
      const index = r * run.sampling.candidates + c;
      const s = samples[index]!;
      counts.rollouts += 1;
      const reward = rewards.get(index);
      if (reward !== undefined) {
        counts.scored += 1;
        counts.rewardSum += reward;
      } else {
        counts.failed += 1;
      }
      if (!s.ok) continue;
      counts.inputTokens += s.promptTokens;
      counts.outputTokens += s.completionTokens;
      rollouts.push({ completion: s.text, completionTokens: s.completionTokens, ...(reward !== undefined ? { reward } : {}) });
    }
    return { rowIndex: row.index, messages: row.row.messages as readonly JsonValue[], rollouts };
  });
  return { groups, counts };
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
