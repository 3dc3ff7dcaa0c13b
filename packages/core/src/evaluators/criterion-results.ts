import type { CriterionOutcome, EvaluationFailureCode, EvaluationRequest } from '../ports/evaluator-runner.js';
import type { JsonObject, JsonValue } from '../ports/json.js';
import type { SandboxReply } from './sandbox-pool.js';

/** A criterion's outcome before it has its name. */
export type CriterionResult = Omit<CriterionOutcome, 'name'>;

export function failure(code: EvaluationFailureCode, reason: string, logs?: readonly string[]): CriterionResult {
  return { failure: { code, reason }, ...(logs && logs.length > 0 ? { logs } : {}) };
}

/** What a criterion's function receives: the conversation with the answer, the answer, the ground truth, the row. */
export function criterionInput(request: EvaluationRequest): JsonObject {
  const row = request.row;
  const answerMessages = request.answer.messages ?? [{ role: 'assistant', content: request.answer.text }];
  const groundTruth = row.ground_truth ?? row.groundTruth ?? null;
  return {
    messages: [...(row.messages ?? []), ...answerMessages],
    answer: request.answer.text,
    groundTruth,
    row: row as JsonObject,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * A criterion's return value as a result: a number, a boolean (1 or 0), or `{score, reason?, metrics?}`
 * (the shape of the reference's EvaluateResult). A score must be a finite number in 0..1.
 */
export function resultOfValue(value: unknown, logs?: readonly string[]): CriterionResult {
  let score: unknown = value;
  let reason: string | undefined;
  let metrics: Record<string, number> | undefined;
  if (typeof value === 'boolean') score = value ? 1 : 0;
  else if (isRecord(value)) {
    score = typeof value.score === 'boolean' ? (value.score ? 1 : 0) : value.score;
    if (typeof value.reason === 'string') reason = value.reason.slice(0, 2000);
    if (isRecord(value.metrics)) {
      metrics = {};
      for (const [name, metric] of Object.entries(value.metrics)) {
        const number = isRecord(metric) ? metric.score : metric;
        if (typeof number === 'number' && Number.isFinite(number)) metrics[name] = number;
      }
    }
  }
  if (typeof score !== 'number' || !Number.isFinite(score)) {
    return failure('INVALID_RESULT', `the evaluator returned ${describeValue(value)}, not a score from 0 to 1`, logs);
  }
  if (score < 0 || score > 1) return failure('INVALID_RESULT', `the evaluator returned the score ${score}, outside 0..1`, logs);
  return { score, ...(reason !== undefined ? { reason } : {}), ...(metrics ? { metrics } : {}), ...(logs && logs.length > 0 ? { logs } : {}) };
}

/** A sandbox's reply (JavaScript or Python) as a result. */
export function resultOfReply(reply: SandboxReply): CriterionResult {
  if (!reply.ok) {
    const code: EvaluationFailureCode = reply.code === 'COMPILE' ? 'BUILD' : reply.code === 'NO_RESULT' ? 'INVALID_RESULT' : reply.code;
    return failure(code, reply.message);
  }
  let parsed: { kind?: unknown; value?: JsonValue; logs?: unknown };
  try {
    parsed = JSON.parse(reply.result) as typeof parsed;
  } catch {
    return failure('INVALID_RESULT', 'the evaluator produced an answer that is not JSON');
  }
  const logs = Array.isArray(parsed.logs) ? parsed.logs.filter((l): l is string => typeof l === 'string').slice(0, 50) : undefined;
  if (parsed.kind === 'ok') return resultOfValue(parsed.value, logs);
  if (parsed.kind === 'memory') return failure('MEMORY', String(parsed.value), logs);
  return failure('THREW', `the evaluator failed: ${String(parsed.value)}`, logs);
}
