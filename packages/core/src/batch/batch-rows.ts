import type { JsonObject } from '../contracts/json.js';
import { parseExtraBody } from '../resources/batch-inference-jobs/batch-inference-job-rules.js';
import { isPlainObject } from '../validation/paths.js';

/** A job's `inferenceParameters`, as stored on the batch inference job. */
export interface BatchInferenceParameters {
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly n?: number;
  /** A JSON object, as a string, merged into every request body. */
  readonly extraBody?: string;
}

/** One input row that parsed: its `custom_id` and the chat-completion request body to send. */
export interface BatchRequestRow {
  readonly ok: true;
  readonly customId: string;
  readonly body: JsonObject;
}

/** One input row that cannot be sent: why (written to the error file), with its custom_id when it had one. */
export interface BatchInvalidRow {
  readonly ok: false;
  readonly customId?: string;
  readonly reason: string;
}

export type BatchRow = BatchRequestRow | BatchInvalidRow;

/** Longest custom_id accepted (the reference's batch files allow 64 characters; Berth allows more). */
const maxCustomIdLength = 512;

/**
 * The request fields the job's `inferenceParameters` set under each row's own values: row overrides win,
 * then the parameters, then `extraBody` (lowest: an explicit parameter is not overridden by it).
 * @throws INVALID_ARGUMENT when `extraBody` is not a JSON object (checked at create, and once per job before any row).
 */
export function jobDefaults(parameters: BatchInferenceParameters | undefined): JsonObject {
  const defaults: JsonObject = parseExtraBody(parameters?.extraBody);
  if (parameters?.maxTokens !== undefined) defaults.max_tokens = parameters.maxTokens;
  if (parameters?.temperature !== undefined) defaults.temperature = parameters.temperature;
  if (parameters?.topP !== undefined) defaults.top_p = parameters.topP;
  if (parameters?.topK !== undefined) defaults.top_k = parameters.topK;
  if (parameters?.n !== undefined) defaults.n = parameters.n;
  return defaults;
}

/**
 * Parses one JSONL line of a batch input in the reference batch row format:
 * `{"custom_id": "...", "body": {"messages": [...], ...per-row overrides}}`. A row in the plain chat
 * dataset format (`{"messages": [...]}`, no custom_id) is accepted too; its custom_id is `row-<n>` (its
 * 1-based position in the input). The model is the job's: a row's `model` is ignored, and `stream` is
 * refused (a batch row is answered whole).
 */
export function parseBatchRow(line: string, rowNumber: number, defaults: JsonObject): BatchRow {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'the line is not valid JSON' };
  }
  if (!isPlainObject(parsed)) return { ok: false, reason: 'the line must be a JSON object' };
  const rawId = parsed.custom_id;
  let customId: string;
  let body: unknown;
  if (rawId === undefined && parsed.body === undefined && Array.isArray(parsed.messages)) {
    customId = `row-${rowNumber}`;
    body = parsed;
  } else {
    if (typeof rawId !== 'string' || rawId === '' || rawId.length > maxCustomIdLength) {
      return { ok: false, reason: `custom_id must be a string of 1 to ${maxCustomIdLength} characters` };
    }
    customId = rawId;
    body = parsed.body;
    if (parsed.url !== undefined && (typeof parsed.url !== 'string' || !parsed.url.endsWith('/chat/completions'))) {
      return { ok: false, customId, reason: 'url must be /v1/chat/completions (the only endpoint a batch row can call)' };
    }
  }
  if (!isPlainObject(body)) return { ok: false, customId, reason: 'body must be a JSON object (a chat-completion request)' };
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return { ok: false, customId, reason: 'body.messages must be a non-empty array' };
  for (const [index, message] of messages.entries()) {
    if (!isPlainObject(message) || typeof message.role !== 'string') return { ok: false, customId, reason: `body.messages[${index}] must be an object with a role` };
  }
  if (body.stream === true) return { ok: false, customId, reason: 'body.stream is not supported in a batch row' };
  const request: JsonObject = { ...defaults };
  for (const [key, value] of Object.entries(body)) {
    if (key === 'model' || key === 'stream' || key === 'stream_options' || value === undefined) continue;
    request[key] = value as JsonObject[string];
  }
  return { ok: true, customId, body: request };
}
