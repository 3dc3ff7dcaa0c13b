/**
 * A create-response body, checked and with every default filled in: what the turn loop runs and what
 * the response echoes. Throws INVALID_ARGUMENT (`param` names the field) for anything out of rule.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';
import { isPlainObject } from '../validation/paths.js';
import { invalid, isAbsent, readBoolean, readEnum, readNumber, readString } from './request-values.js';
import { parseInput } from './response-input.js';
import { parseToolChoice, parseTools } from './response-tools.js';
import type { ConversationItem, ReasoningSettings, ResponseTool, TextFormat, TextSettings, ToolChoice } from './response-types.js';
import type { ResponseToolProvider } from './tool-provider.js';

export interface ResponseRequest {
  /** As the client sent it (echoed): `accounts/<account>/models/<model>` (or `…#<deployment>`). */
  readonly model: string;
  /** This request's own items, with ids. */
  readonly input: ConversationItem[];
  readonly previousResponseId: string | null;
  readonly instructions: string | null;
  readonly maxOutputTokens: number | null;
  readonly maxToolCalls: number | null;
  readonly metadata: { [key: string]: string };
  readonly parallelToolCalls: boolean;
  readonly reasoning: ReasoningSettings;
  readonly store: boolean;
  readonly stream: boolean;
  readonly background: boolean;
  readonly temperature: number;
  readonly topP: number;
  readonly presencePenalty: number;
  readonly frequencyPenalty: number;
  readonly topLogprobs: number;
  readonly text: TextSettings;
  readonly toolChoice: ToolChoice;
  readonly tools: ResponseTool[];
  readonly truncation: 'auto' | 'disabled';
  readonly user: string | null;
  readonly serviceTier: string;
  readonly safetyIdentifier: string | null;
  readonly promptCacheKey: string | null;
}

/** Every key a create body may carry; any other is refused, as the reference API does. */
const knownKeys: ReadonlySet<string> = new Set([
  'model', 'input', 'previous_response_id', 'instructions', 'max_output_tokens', 'max_tool_calls', 'metadata',
  'parallel_tool_calls', 'reasoning', 'store', 'stream', 'stream_options', 'background', 'temperature', 'top_p',
  'presence_penalty', 'frequency_penalty', 'top_logprobs', 'text', 'tool_choice', 'tools', 'truncation', 'user',
  'service_tier', 'safety_identifier', 'prompt_cache_key', 'include', 'conversation', 'prompt',
]);

const modelPattern = /^accounts\/[a-z0-9][a-z0-9-]{0,62}\/models\/[a-z0-9][a-z0-9-]{0,62}(#.{1,300})?$/;
const reasoningEfforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
const reasoningSummaries = ['auto', 'concise', 'detailed'] as const;
const serviceTiers = ['auto', 'default', 'flex', 'scale', 'priority'] as const;
const includable: ReadonlySet<string> = new Set([
  'message.output_text.logprobs', 'reasoning.encrypted_content', 'message.input_image.image_url',
  'computer_call_output.output.image_url', 'file_search_call.results', 'web_search_call.results',
  'web_search_call.action.sources', 'code_interpreter_call.outputs',
]);

/** Metadata limits (the specification's 16 pairs; key and value lengths as the reference API). */
export const metadataLimits = { pairs: 16, keyLength: 64, valueLength: 512 } as const;

/** Parses a create body. `providers` are the gateway-run tool types (MCP) installed. */
export function parseResponseRequest(raw: unknown, providers: readonly ResponseToolProvider[] = []): ResponseRequest {
  const body = bodyObject(raw, knownKeys);
  for (const key of ['conversation', 'prompt'] as const) {
    if (!isAbsent(body[key])) throw invalid(`${key} is not supported: continue a conversation with previous_response_id`, key, 'UNSUPPORTED_PARAMETER');
  }
  const model = readModel(body);
  const previousResponseId = readString(body, 'previous_response_id', 256);
  const input = parseInput(body.input);
  if (input.length === 0 && previousResponseId === null) throw invalid('input must hold at least one item', 'input');
  const tools = parseTools(body.tools, providers);
  const stream = readBoolean(body, 'stream', false);
  if (!isAbsent(body.stream_options) && !isPlainObject(body.stream_options)) throw invalid('stream_options must be an object', 'stream_options', 'INVALID_TYPE');
  parseInclude(body.include);
  return {
    model,
    input,
    previousResponseId,
    instructions: readString(body, 'instructions'),
    maxOutputTokens: readNumber(body, 'max_output_tokens', { min: 1, integer: true }, null),
    maxToolCalls: readNumber(body, 'max_tool_calls', { min: 1, integer: true }, null),
    metadata: parseMetadata(body.metadata),
    parallelToolCalls: readBoolean(body, 'parallel_tool_calls', true),
    reasoning: parseReasoning(body.reasoning),
    store: readBoolean(body, 'store', true),
    stream,
    background: readBoolean(body, 'background', false),
    temperature: readNumber(body, 'temperature', { min: 0, max: 2 }, 1),
    topP: readNumber(body, 'top_p', { min: 0, max: 1 }, 1),
    presencePenalty: readNumber(body, 'presence_penalty', { min: -2, max: 2 }, 0),
    frequencyPenalty: readNumber(body, 'frequency_penalty', { min: -2, max: 2 }, 0),
    topLogprobs: readNumber(body, 'top_logprobs', { min: 0, max: 20, integer: true }, 0),
    text: parseText(body.text),
    toolChoice: parseToolChoice(body.tool_choice, tools),
    tools,
    truncation: readEnum(body, 'truncation', ['auto', 'disabled'] as const, 'disabled'),
    user: readString(body, 'user', 256),
    serviceTier: readEnum(body, 'service_tier', serviceTiers, 'default'),
    safetyIdentifier: readString(body, 'safety_identifier', 256),
    promptCacheKey: readString(body, 'prompt_cache_key', 256),
  };
}

/** A request body as an object whose keys are all `known` (any other is 400 `unknown_parameter`, as the reference API answers). */
export function bodyObject(raw: unknown, known: ReadonlySet<string>): JsonObject {
  if (!isPlainObject(raw)) throw invalid('the request body must be a JSON object', null, 'INVALID_TYPE');
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) throw invalid(`Unknown parameter: '${key}'.`, key, 'UNKNOWN_PARAMETER');
  }
  return raw;
}

/** `model`: required, `accounts/<account>/models/<model>` (or `…#<deployment>`). */
export function readModel(body: JsonObject): string {
  const model = body.model;
  if (isAbsent(model)) throw invalid('model is required: accounts/<account_id>/models/<model_id>', 'model', 'MISSING_REQUIRED_PARAMETER');
  if (typeof model !== 'string' || !modelPattern.test(model)) {
    throw invalid('model must be a model name of the form accounts/<account_id>/models/<model_id>', 'model');
  }
  return model;
}

function parseMetadata(value: JsonValue | undefined): { [key: string]: string } {
  if (isAbsent(value)) return {};
  if (!isPlainObject(value)) throw invalid('metadata must be an object of string values', 'metadata', 'INVALID_TYPE');
  const entries = Object.entries(value);
  if (entries.length > metadataLimits.pairs) throw invalid(`metadata may hold at most ${metadataLimits.pairs} key-value pairs, got ${entries.length}`, 'metadata');
  const out: { [key: string]: string } = {};
  for (const [key, entry] of entries) {
    if (key.length === 0 || key.length > metadataLimits.keyLength) throw invalid(`metadata keys must be 1 to ${metadataLimits.keyLength} characters`, `metadata.${key}`);
    if (typeof entry !== 'string') throw invalid(`metadata.${key} must be a string`, `metadata.${key}`, 'INVALID_TYPE');
    if (entry.length > metadataLimits.valueLength) throw invalid(`metadata.${key} must be at most ${metadataLimits.valueLength} characters`, `metadata.${key}`);
    out[key] = entry;
  }
  return out;
}

function parseReasoning(value: JsonValue | undefined): ReasoningSettings {
  if (isAbsent(value)) return { effort: null, summary: null };
  if (!isPlainObject(value)) throw invalid('reasoning must be an object', 'reasoning', 'INVALID_TYPE');
  for (const key of Object.keys(value)) {
    if (key !== 'effort' && key !== 'summary' && key !== 'generate_summary') throw invalid(`Unknown parameter: 'reasoning.${key}'.`, `reasoning.${key}`, 'UNKNOWN_PARAMETER');
  }
  const summary = readEnum(value, 'summary', reasoningSummaries, null, 'reasoning.summary') ?? readEnum(value, 'generate_summary', reasoningSummaries, null, 'reasoning.generate_summary');
  return { effort: readEnum(value, 'effort', reasoningEfforts, null, 'reasoning.effort'), summary };
}

function parseText(value: JsonValue | undefined): TextSettings {
  if (isAbsent(value)) return { format: { type: 'text' } };
  if (!isPlainObject(value)) throw invalid('text must be an object', 'text', 'INVALID_TYPE');
  for (const key of Object.keys(value)) {
    if (key !== 'format' && key !== 'verbosity') throw invalid(`Unknown parameter: 'text.${key}'.`, `text.${key}`, 'UNKNOWN_PARAMETER');
  }
  const verbosity = readEnum(value, 'verbosity', ['low', 'medium', 'high'] as const, null, 'text.verbosity');
  return { format: parseFormat(value.format), ...(verbosity !== null ? { verbosity } : {}) };
}

function parseFormat(value: JsonValue | undefined): TextFormat {
  if (isAbsent(value)) return { type: 'text' };
  if (!isPlainObject(value)) throw invalid('text.format must be an object', 'text.format', 'INVALID_TYPE');
  switch (value.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const name = value.name;
      if (typeof name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
        throw invalid('text.format.name must be 1 to 64 letters, digits, underscores or hyphens', 'text.format.name', isAbsent(name) ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_VALUE');
      }
      if (!isPlainObject(value.schema)) throw invalid('text.format.schema must be a JSON Schema object', 'text.format.schema', isAbsent(value.schema) ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_TYPE');
      const description = readString(value, 'description', undefined, 'text.format.description');
      const strict = value.strict;
      if (!isAbsent(strict) && typeof strict !== 'boolean') throw invalid('text.format.strict must be a boolean', 'text.format.strict', 'INVALID_TYPE');
      // Unset strict is echoed as false, the default the engines apply (Open Responses: a boolean, never null).
      return { type: 'json_schema', name, schema: value.schema, description, strict: typeof strict === 'boolean' ? strict : false };
    }
    default:
      throw invalid('text.format.type must be one of text, json_object, json_schema', 'text.format.type', 'UNSUPPORTED_VALUE');
  }
}

function parseInclude(value: JsonValue | undefined): void {
  if (isAbsent(value)) return;
  if (!Array.isArray(value)) throw invalid('include must be a list of strings', 'include', 'INVALID_TYPE');
  value.forEach((entry, i) => {
    if (typeof entry !== 'string' || !includable.has(entry)) throw invalid(`include[${i}] is not a known include value`, `include[${i}]`, 'UNSUPPORTED_VALUE');
  });
}
