import type { JsonObject, JsonValue } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';

/** The code of a `CODE_SNIPPETS` criterion (the reference's `codeSnippets`). */
export interface EvaluatorCodeSnippets {
  /** `javascript`/`js`, `typescript`/`ts` or `python`/`py` (case-insensitive). */
  readonly language?: string;
  /** File name → source. Files may require/import each other by relative path. */
  readonly fileContents?: Readonly<Record<string, string>>;
  /** The file whose function is called; default: the only file, else `main.<ext>`. */
  readonly entryFile?: string;
  /** The function called; default `evaluate`. */
  readonly entryFunc?: string;
}

/** One criterion of an evaluator, as the runner reads it (the resource's `criteria[]`). */
export interface EvaluatorCriterionSpec {
  /** `CODE_SNIPPETS` (default when `codeSnippets` is given), `EXACT_MATCH`, `REGEX`, `JSON_SCHEMA`, `REMOTE`. */
  readonly type?: string;
  readonly name?: string;
  readonly codeSnippets?: EvaluatorCodeSnippets;
  /** Berth: the answer equals a ground-truth field of the row. */
  readonly exactMatch?: { readonly groundTruthField?: string; readonly caseSensitive?: boolean; readonly trimWhitespace?: boolean };
  /** Berth: the answer matches a regular expression (run in the sandbox, under its time limit). */
  readonly regex?: { readonly pattern?: string; readonly flags?: string };
  /** Berth: the answer is JSON valid against a JSON Schema. */
  readonly jsonSchema?: { readonly schema?: JsonObject };
  /** Berth: a remote evaluator scores the rollout (POST to `url` through the guarded outbound client). */
  readonly remote?: { readonly url?: string; readonly headers?: Readonly<Record<string, string>> };
}

/** An evaluator as the runner reads it: the Evaluator resource is one. */
export interface EvaluatorSpec {
  readonly name?: string;
  readonly criteria?: readonly EvaluatorCriterionSpec[];
  readonly rollupSettings?: {
    readonly criteriaWeights?: Readonly<Record<string, number>>;
    readonly successThreshold?: number;
    readonly skipRollup?: boolean;
  };
}

/** A dataset row of the RL format: the prompt's `messages` plus ground-truth fields (any other keys). */
export interface EvaluationRow {
  readonly messages?: JsonValue[];
  readonly [field: string]: JsonValue | undefined;
}

/** What the policy answered in one rollout. */
export interface RolloutAnswer {
  /** The final assistant text, what most criteria score. */
  readonly text: string;
  /** The whole assistant turn (tool calls and results included) when there is more than the text. */
  readonly messages?: readonly JsonValue[];
}

export interface EvaluationRequest {
  readonly row: EvaluationRow;
  readonly answer: RolloutAnswer;
}

/** Why a rollout could not be scored. */
export type EvaluationFailureCode =
  /** The criterion threw, or rejected. */
  | 'THREW'
  /** It ran past its time limit (stopped; a sandbox process past the limit is killed). */
  | 'TIMEOUT'
  /** It exhausted its memory limit (the sandbox process was killed and replaced). */
  | 'MEMORY'
  /** It returned something that is not a score in 0..1. */
  | 'INVALID_RESULT'
  /** Its code does not compile, or the criterion is not runnable as configured. */
  | 'BUILD'
  /** What it needs is missing on this host (e.g. python3). */
  | 'FAILED_PRECONDITION'
  /** The remote evaluator could not be reached or answered an error. */
  | 'REMOTE'
  /** The sandbox process died for another reason. */
  | 'CRASHED'
  /** The caller's signal aborted the evaluation. */
  | 'CANCELLED';

/** One criterion's part of an outcome. */
export interface CriterionOutcome {
  readonly name: string;
  readonly score?: number;
  readonly reason?: string;
  readonly metrics?: Readonly<Record<string, number>>;
  readonly failure?: { readonly code: EvaluationFailureCode; readonly reason: string };
  /** What the criterion printed (`console.*` / `print`), truncated. */
  readonly logs?: readonly string[];
}

export interface EvaluationDetails {
  readonly criteria: readonly CriterionOutcome[];
  /** `score >= rollupSettings.successThreshold` when a threshold is set. */
  readonly passed?: boolean;
  readonly durationMs: number;
}

/**
 * The result of scoring one rollout: a score in 0..1, or a failure with its reason. A failure concerns
 * that rollout only; the runner never throws for what an evaluator does.
 */
export type EvaluationOutcome =
  | { readonly status: 'scored'; readonly score: number; readonly reason?: string; readonly details: EvaluationDetails }
  | {
      readonly status: 'failed';
      readonly code: EvaluationFailureCode;
      readonly reason: string;
      readonly details: EvaluationDetails;
    };

/** What a build of an evaluator found: runnable, or why not. */
export type EvaluatorBuildResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: 'INVALID_ARGUMENT' | 'FAILED_PRECONDITION'; readonly message: string };

export interface ScoreManyOptions {
  /** At most this many evaluations at once (default: the runner's own limit); never above the runner's limit. */
  readonly concurrency?: number;
}

/**
 * Runs evaluators (reward functions): scores a rollout's answer against a dataset row from 0.0 to 1.0.
 * Core binds a default runner (`createSandboxEvaluatorRunner`: JavaScript/TypeScript in sandboxed
 * child processes, Python with the host's `python3`, built-in criteria); a plugin may override
 * `evaluatorRunnerToken`.
 *
 * Every method resolves: an evaluator that throws, loops, exhausts memory, returns a score outside 0..1
 * or cannot run on this host gives a `failed` outcome with a reason, for that rollout only. Only a
 * mistake of the caller (e.g. a closed runner) rejects.
 */
export interface EvaluatorRunner {
  /** Checks that the evaluator can run here: its code compiles, its language is available. */
  build(ctx: RequestContext, evaluator: EvaluatorSpec): Promise<EvaluatorBuildResult>;
  /** Scores one rollout. */
  score(ctx: RequestContext, evaluator: EvaluatorSpec, request: EvaluationRequest): Promise<EvaluationOutcome>;
  /** Scores many rollouts, at most `concurrency` at once; outcomes in the order of `requests`. */
  scoreMany(ctx: RequestContext, evaluator: EvaluatorSpec, requests: readonly EvaluationRequest[], options?: ScoreManyOptions): Promise<EvaluationOutcome[]>;
  /** Stops the sandbox processes. */
  close(): Promise<void>;
}
