/**
 * The rows of a reinforcement fine-tuning job: the RL dataset format, the evaluation carve-out and the
 * chunks one training step each covers.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { Storage } from '../ports/storage.js';
import type { EvaluationRow } from '../ports/evaluator-runner.js';
import { inputLines } from '../batch/batch-input.js';
import { chunkSizeLimits } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-schema.js';

/** Chunking is active only for datasets of more rows than this (spec: Limits); smaller ones train in one step per epoch. */
export const chunkingThresholdRows = 300;

/** `evalAutoCarveout`: every `carveoutEvery`-th row (rows 10, 20, … counted from 1) is the evaluation set: a 10% share. */
export const carveoutEvery = 10;

/** One RL row: the prompt's `messages` and the ground-truth fields the evaluator reads. */
export interface RlRow {
  /** 0-based index in its dataset. */
  readonly index: number;
  readonly row: EvaluationRow & { readonly messages: JsonValue[] };
}

/** A row that is not of the RL format. */
export class RlRowProblem extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`row ${line}: ${reason}`);
  }
}

/**
 * Checks one line of an RL dataset: a JSON object whose `messages` is a non-empty list of chat messages
 * (objects with a string `role`), the last of them not the assistant's; every other key is a ground-truth
 * field (e.g. `ground_truth`) passed to the evaluator with the row.
 */
export function parseRlRow(line: string, index: number): RlRow {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new RlRowProblem(index + 1, 'is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RlRowProblem(index + 1, 'is not a JSON object');
  const row = value as JsonObject;
  const messages = row.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw new RlRowProblem(index + 1, 'has no "messages" (a non-empty list of chat messages)');
  messages.forEach((message, i) => {
    if (typeof message !== 'object' || message === null || Array.isArray(message) || typeof message.role !== 'string') {
      throw new RlRowProblem(index + 1, `messages[${i}] is not a chat message with a string "role"`);
    }
  });
  const last = messages[messages.length - 1] as JsonObject;
  if (last.role === 'assistant') throw new RlRowProblem(index + 1, 'ends with an assistant message; the prompt must end where the policy answers');
  return { index, row: row as RlRow['row'] };
}

/** Every row of an RL dataset (its `.jsonl` files in name order); throws {@link RlRowProblem} at the first bad row. */
export async function readRlRows(ctx: RequestContext, storage: Storage, dataset: string): Promise<RlRow[]> {
  const rows: RlRow[] = [];
  for await (const line of inputLines(ctx, storage, dataset)) rows.push(parseRlRow(line, rows.length));
  return rows;
}

/** The job's training and evaluation rows. */
export interface RftRows {
  readonly train: readonly RlRow[];
  readonly evaluation: readonly RlRow[];
  /** Rows of the training dataset (before a carve-out): decides whether chunking is active. */
  readonly datasetRows: number;
}

/**
 * Splits the training dataset: with `carveout`, every tenth row goes to the evaluation set (none when the
 * dataset has fewer than ten rows); an evaluation dataset's rows are the evaluation set otherwise.
 */
export function splitRows(dataset: readonly RlRow[], options: { carveout: boolean; evaluation?: readonly RlRow[] }): RftRows {
  if (!options.carveout) return { train: dataset, evaluation: options.evaluation ?? [], datasetRows: dataset.length };
  const train: RlRow[] = [];
  const evaluation: RlRow[] = [];
  for (const row of dataset) ((row.index + 1) % carveoutEvery === 0 ? evaluation : train).push(row);
  return { train, evaluation, datasetRows: dataset.length };
}

/**
 * The chunks of one epoch, as `[start, end)` ranges over the training rows: `chunkSize` rows each when the
 * dataset has more than 300 rows, else the whole epoch in one chunk.
 */
export function chunkRanges(rows: RftRows, chunkSize: number | undefined): [number, number][] {
  const size = rows.datasetRows > chunkingThresholdRows ? (chunkSize ?? chunkSizeLimits.default) : Math.max(1, rows.train.length);
  const ranges: [number, number][] = [];
  for (let start = 0; start < rows.train.length; start += size) ranges.push([start, Math.min(rows.train.length, start + size)]);
  return ranges;
}
