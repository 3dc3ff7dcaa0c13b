import { invalidArgument, isPlainObject, type GatewayError } from '@berth/core';

/** Which OpenAI-compatible operation a request is for. */
export type InferenceOperation = 'chat' | 'completion';

/** What the proxy needs from a validated body; the body itself is forwarded unchanged except `model`. */
export interface InferenceRequest {
  readonly operation: InferenceOperation;
  /** As the client sent it: `accounts/a/models/m` or `accounts/a/models/m#accounts/a/deployments/d`. */
  readonly model: string;
  readonly stream: boolean;
  /** `user`, the session-affinity key when present. */
  readonly user?: string;
  readonly body: Readonly<Record<string, unknown>>;
}

const messageRoles: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/** Longest `model` string accepted (a model name plus `#` and a deployment name fit easily). */
const maxModelLength = 512;

function invalid(message: string, param: string | null): GatewayError {
  return invalidArgument(message, param === null ? { reason: 'INVALID_REQUEST' } : { field: param, reason: 'INVALID_REQUEST' });
}

const isAbsent = (value: unknown): boolean => value === undefined || value === null;

function checkNumber(body: Record<string, unknown>, key: string, min: number, max: number, integer: boolean): void {
  const value = body[key];
  if (isAbsent(value)) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    const kind = integer ? 'an integer' : 'a number';
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw invalid(`${key} must be ${kind} ${range}`, key);
  }
}

function checkBoolean(body: Record<string, unknown>, key: string): void {
  if (!isAbsent(body[key]) && typeof body[key] !== 'boolean') throw invalid(`${key} must be a boolean`, key);
}

/**
 * The checks common to both operations. Deliberately minimal: what the gateway itself relies on (model,
 * stream, user) and ranges that an engine would otherwise reject less clearly. Unknown keys pass through
 * to the engine, which owns the rest of the OpenAI surface.
 */
function checkCommon(body: Record<string, unknown>): { model: string; stream: boolean; user?: string } {
  const model = body.model;
  if (typeof model !== 'string' || model.trim().length === 0) throw invalid('model is required: a model name such as accounts/<account>/models/<model>', 'model');
  if (model.length > maxModelLength) throw invalid(`model must be at most ${maxModelLength} characters`, 'model');
  const stream = body.stream;
  if (!isAbsent(stream) && typeof stream !== 'boolean') throw invalid('stream must be a boolean', 'stream');
  if (!isAbsent(body.stream_options)) {
    if (!isPlainObject(body.stream_options)) throw invalid('stream_options must be an object', 'stream_options');
    const includeUsage = body.stream_options.include_usage;
    if (!isAbsent(includeUsage) && typeof includeUsage !== 'boolean') throw invalid('stream_options.include_usage must be a boolean', 'stream_options.include_usage');
  }
  checkNumber(body, 'temperature', 0, 2, false);
  checkNumber(body, 'top_p', 0, 1, false);
  checkNumber(body, 'top_k', -1, Number.MAX_SAFE_INTEGER, true);
  checkNumber(body, 'presence_penalty', -2, 2, false);
  checkNumber(body, 'frequency_penalty', -2, 2, false);
  checkNumber(body, 'n', 1, 128, true);
  checkNumber(body, 'max_tokens', 1, Number.MAX_SAFE_INTEGER, true);
  checkNumber(body, 'max_completion_tokens', 1, Number.MAX_SAFE_INTEGER, true);
  checkNumber(body, 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true);
  checkNumber(body, 'top_logprobs', 0, 20, true);
  const stop = body.stop;
  if (!isAbsent(stop) && typeof stop !== 'string' && !(Array.isArray(stop) && stop.length <= 4 && stop.every((s) => typeof s === 'string'))) {
    throw invalid('stop must be a string or an array of up to 4 strings', 'stop');
  }
  const user = body.user;
  if (!isAbsent(user) && typeof user !== 'string') throw invalid('user must be a string', 'user');
  return { model, stream: stream === true, ...(typeof user === 'string' && user.length > 0 ? { user } : {}) };
}

/** Validates a `POST /inference/v1/chat/completions` body. Throws INVALID_ARGUMENT naming the `param`. */
export function parseChatCompletionRequest(body: unknown): InferenceRequest {
  if (!isPlainObject(body)) throw invalid('the request body must be a JSON object', null);
  const common = checkCommon(body);
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw invalid('messages must be a non-empty array', 'messages');
  for (const [i, message] of messages.entries()) {
    if (!isPlainObject(message) || typeof message.role !== 'string' || !messageRoles.has(message.role)) {
      throw invalid(`messages[${i}].role must be one of system, developer, user, assistant, tool`, `messages[${i}].role`);
    }
    const content = message.content;
    if (!isAbsent(content) && typeof content !== 'string' && !Array.isArray(content)) {
      throw invalid(`messages[${i}].content must be a string or an array of content parts`, `messages[${i}].content`);
    }
  }
  if (!isAbsent(body.tools)) {
    if (!Array.isArray(body.tools)) throw invalid('tools must be an array', 'tools');
    for (const [i, tool] of body.tools.entries()) {
      if (!isPlainObject(tool) || typeof tool.type !== 'string') throw invalid(`tools[${i}] must be an object with a type`, `tools[${i}]`);
    }
  }
  const toolChoice = body.tool_choice;
  if (!isAbsent(toolChoice) && typeof toolChoice !== 'string' && !isPlainObject(toolChoice)) {
    throw invalid('tool_choice must be a string or an object', 'tool_choice');
  }
  checkBoolean(body, 'parallel_tool_calls');
  checkBoolean(body, 'logprobs');
  return { operation: 'chat', ...common, body };
}

/** Validates a `POST /inference/v1/completions` body. Throws INVALID_ARGUMENT naming the `param`. */
export function parseCompletionRequest(body: unknown): InferenceRequest {
  if (!isPlainObject(body)) throw invalid('the request body must be a JSON object', null);
  const common = checkCommon(body);
  const prompt = body.prompt;
  const isTokens = (value: unknown): boolean => Array.isArray(value) && value.length > 0 && value.every((t) => Number.isInteger(t));
  const valid =
    typeof prompt === 'string' ||
    (Array.isArray(prompt) && prompt.length > 0 && (prompt.every((p) => typeof p === 'string') || isTokens(prompt) || prompt.every(isTokens)));
  if (!valid) throw invalid('prompt is required: a string, an array of strings, or token arrays', 'prompt');
  checkNumber(body, 'logprobs', 0, 5, true);
  checkBoolean(body, 'echo');
  return { operation: 'completion', ...common, body };
}
