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
import type { RolloutTools } from './rft-tools.js';

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

/**
 * Defaults: 4 candidates (a group needs at least two to compare), 256 output tokens, temperature 1; with
 * MCP tools, at most 4 rounds of tool calls per rollout.
 */
export const rolloutDefaults = { candidates: 4, maxOutputTokens: 256, temperature: 1, maxConcurrentRollouts: 16, maxConcurrentEvaluations: 8, maxToolRounds: 4 } as const;

/** Counts of a batch of rollouts, added to the job's progress. */
export interface RolloutCounts {
  rollouts: number;
  scored: number;
  failed: number;
  inputTokens: number;
  outputTokens: number;
  rewardSum: number;
  /** MCP tool calls the rollouts made, and how many of them failed (the model read an error). */
  toolCalls: number;
  failedToolCalls: number;
}

export function emptyRolloutCounts(): RolloutCounts {
  return { rollouts: 0, scored: 0, failed: 0, inputTokens: 0, outputTokens: 0, rewardSum: 0, toolCalls: 0, failedToolCalls: 0 };
}

/** Samples the model gives: the answer, or why there is none. */
type Sample =
  | {
    readonly ok: true; readonly text: string; readonly promptTokens: number; readonly completionTokens: number;
    /** The assistant turn (tool calls, tool results, the final answer) when the model called tools. */
    readonly messages?: JsonObject[];
    readonly toolCalls: number; readonly failedToolCalls: number;
  }
  | { readonly ok: false; readonly reason: string };

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

/** The model's answer to one request, or why there is none (after the retries of transient answers). */
type Completion = { readonly ok: true; readonly message: JsonObject; readonly promptTokens: number; readonly completionTokens: number } | { readonly ok: false; readonly reason: string };

async function complete(ctx: RequestContext, client: ChatModelClient, target: ModelTarget, body: JsonObject, retries: number): Promise<Completion> {
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
      const usage = outcome.completion.usage as JsonObject | undefined;
      return {
        ok: true,
        message: (choice?.message as JsonObject | undefined) ?? {},
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

/** A tool call as the model wrote it (`message.tool_calls[i]`). */
interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

function toolCallsOf(message: JsonObject): ModelToolCall[] {
  const calls = message.tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.map((call, i) => {
    const c = (typeof call === 'object' && call !== null && !Array.isArray(call) ? call : {}) as JsonObject;
    const fn = (typeof c.function === 'object' && c.function !== null && !Array.isArray(c.function) ? c.function : {}) as JsonObject;
    return { id: typeof c.id === 'string' ? c.id : `call_${i}`, name: typeof fn.name === 'string' ? fn.name : '', arguments: typeof fn.arguments === 'string' ? fn.arguments : '' };
  });
}

/**
 * One rollout: the prompt sampled once. With `tools`, the tool-call loop runs: while the model answers
 * with tool calls, they run (side by side) and their results (`error: …` for a failed call) are sent
 * back as `tool` messages, for at most `maxToolRounds` rounds; the request after the last round says
 * `tool_choice: "none"`, so the rollout ends in a text answer, which is what the evaluator scores.
 */
async function sample(ctx: RequestContext, run: RolloutRun, row: RlRow, seed: number): Promise<Sample> {
  const { sampling, tools } = run;
  const retries = run.retries ?? 3;
  const maxRounds = run.maxToolRounds ?? rolloutDefaults.maxToolRounds;
  const offered = tools !== undefined && tools.functions.length > 0 ? tools : undefined;
  const body: JsonObject = {
    seed,
    ...(sampling.extraBody ?? {}),
    max_tokens: sampling.maxOutputTokens,
    temperature: sampling.temperature,
    ...(sampling.topP !== undefined ? { top_p: sampling.topP } : {}),
    ...(sampling.topK !== undefined ? { top_k: sampling.topK } : {}),
    n: 1,
    ...(offered ? { tools: offered.functions.map((fn) => ({ type: 'function', function: { ...fn } as JsonObject })) } : {}),
  };
  const turn: JsonObject[] = [];
  let promptTokens = 0;
  let completionTokens = 0;
  let toolCalls = 0;
  let failedToolCalls = 0;
  for (let round = 0; ; round += 1) {
    const last = offered !== undefined && round >= maxRounds;
    const answer = await complete(ctx, run.client, run.target, { ...body, messages: [...row.row.messages, ...turn], ...(last ? { tool_choice: 'none' } : {}) }, retries);
    if (!answer.ok) return answer;
    promptTokens += answer.promptTokens;
    completionTokens += answer.completionTokens;
    const content = answer.message.content;
    const text = typeof content === 'string' ? content : '';
    const calls = offered ? toolCallsOf(answer.message) : [];
    if (!offered || calls.length === 0 || last) {
      const counts = { promptTokens, completionTokens, toolCalls, failedToolCalls };
      if (turn.length === 0) return { ok: true, text, ...counts };
      return { ok: true, text, messages: [...turn, { role: 'assistant', content: text }], ...counts };
    }
    turn.push({ role: 'assistant', content: typeof content === 'string' ? content : null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
    const results = await Promise.all(calls.map((c) => offered.call(ctx, c.name, c.arguments)));
    results.forEach((result, i) => {
      toolCalls += 1;
      if ('error' in result) failedToolCalls += 1;
      turn.push({ role: 'tool', tool_call_id: calls[i]!.id, content: 'error' in result ? `error: ${result.error}` : result.output });
    });
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
  /** The job's MCP tools (`mcpServer`), offered to every rollout. */
  readonly tools?: RolloutTools;
  /** Rounds of tool calls per rollout. Default {@link rolloutDefaults.maxToolRounds}. */
  readonly maxToolRounds?: number;
}

/**
 * Samples and scores the rollouts of `rows`: one group per row, with its rollouts in sampling order.
 * Throws only when the serving layer stays unavailable or `ctx.signal` aborts.
 */
export async function runRollouts(ctx: RequestContext, run: RolloutRun, rows: readonly RlRow[]): Promise<{ groups: TrainingGroup[]; counts: RolloutCounts }> {
  const jobs = rows.flatMap((row) => Array.from({ length: run.sampling.candidates }, () => row));
  const samples = await mapLimited(jobs, run.maxConcurrentRollouts, (row, i) =>
    sample(ctx, run, row, sampleSeed(run.seedBase, row.index, i % run.sampling.candidates)));
  const answered = samples.flatMap((s, i) => (s.ok ? [{ index: i, text: s.text, messages: s.messages }] : []));
  const outcomes = await run.evaluators.scoreMany(ctx, run.evaluator, answered.map((a) => ({
    row: jobs[a.index]!.row, answer: { text: a.text, ...(a.messages ? { messages: a.messages } : {}) },
  })), {
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
      counts.toolCalls += s.toolCalls;
      counts.failedToolCalls += s.failedToolCalls;
      rollouts.push({ completion: s.text, completionTokens: s.completionTokens, ...(s.messages ? { messages: s.messages } : {}), ...(reward !== undefined ? { reward } : {}) });
    }
    return { rowIndex: row.index, messages: row.row.messages as readonly JsonValue[], rollouts };
  });
  return { groups, counts };
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
