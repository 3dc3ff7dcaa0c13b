import { createHash } from 'node:crypto';
import { invalidArgument } from '../errors/index.js';
import type { JsonObject, JsonValue } from '../ports/json.js';
import { sampleIndex, wordProbabilities } from './reference-lora.js';
import { countTokens, tokenize } from './tokenizer.js';
import { referenceVocabulary as vocabulary } from './vocabulary.js';

/** A chat message as the OpenAI chat API carries it (text is all the reference engine reads). */
export interface EngineChatMessage {
  readonly role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  /** A string, or content parts of which the `text` ones are read. */
  readonly content?: string | readonly EngineContentPart[] | null;
  readonly name?: string;
  readonly tool_call_id?: string;
  readonly tool_calls?: readonly { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }[];
}

export interface EngineContentPart {
  readonly type: string;
  readonly text?: string;
}

/** A tool the model may call: a name and a JSON Schema of its arguments. */
export interface GeneratorTool {
  readonly name: string;
  readonly description?: string;
  readonly parameters?: JsonObject;
}

/** `none`, `auto` (the default), `required`, or one tool by name. */
export type GeneratorToolChoice = 'none' | 'auto' | 'required' | { readonly name: string };

export interface GenerateInput {
  /** Model id; part of the seed, so two models answer the same prompt differently. */
  readonly model: string;
  /** A completion prompt. Exactly one of `prompt` and `messages`. */
  readonly prompt?: string;
  /** A chat conversation. */
  readonly messages?: readonly EngineChatMessage[];
  /** Default 0. Same (model, prompt, seed, choiceIndex) → same output. */
  readonly seed?: number;
  /** Upper bound on completion tokens. */
  readonly maxTokens?: number;
  /** Context window: prompt tokens + completion tokens may not exceed it. Default 8192. */
  readonly contextLength?: number;
  readonly stop?: string | readonly string[];
  readonly tools?: readonly GeneratorTool[];
  readonly toolChoice?: GeneratorToolChoice;
  /** Default true: several mentioned tools are called at once. */
  readonly parallelToolCalls?: boolean;
  /** Index of the choice when several (`n`) are generated; varies the output. */
  readonly choiceIndex?: number;
  /**
   * Digest of a LoRA adapter's weights answering under `model`: part of the seed, so two adapters (and the
   * base model) answer the same prompt differently, and the same adapter bytes always answer alike.
   */
  readonly adapter?: string;
  /**
   * Per-word logit biases of a trained reference add-on (see reference-lora.ts), one per vocabulary word.
   * When given, words are drawn from `softmax(bias / temperature)` instead of uniformly.
   */
  readonly wordLogitBias?: ArrayLike<number>;
  /** Sampling temperature, read only with `wordLogitBias` (default 1; 0 is greedy). */
  readonly temperature?: number;
}

export interface GeneratedToolCall {
  /** `call_` + 24 hex characters, deterministic. */
  readonly id: string;
  readonly name: string;
  /** JSON text of the arguments. */
  readonly arguments: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface TokenUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

export interface GenerateResult {
  /** The generated text ('' when the answer is tool calls). */
  readonly text: string;
  /** `text` split into token pieces, for streaming; their concatenation is `text`. */
  readonly pieces: readonly string[];
  readonly toolCalls: readonly GeneratedToolCall[];
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage;
}

/** Context window of the reference engine when none is configured. */
export const defaultEngineContextLength = 8192;


/**
 * The reference engine's generator: pure and deterministic in (model, prompt or messages, seed, choiceIndex,
 * adapter digest).
 *
 * Text: 12–48 tokens of words drawn from a fixed vocabulary by a PRNG seeded with a hash of those inputs
 * (uniformly; from `softmax(wordLogitBias / temperature)` under a trained reference add-on, one PRNG draw
 * per word either way),
 * cut at `maxTokens` or at the room left in the context window (finish `length`), or at the first `stop`
 * string (finish `stop`, the stop string excluded).
 *
 * Tool calls (finish `tool_calls`, text ''), when `tools` are given and `toolChoice` is not `none`:
 * - `toolChoice: {name}` calls that tool;
 * - `required` calls the tools the last user message mentions, else the first tool;
 * - `auto` (default) calls the tools whose names appear (case-insensitively) in the last message, only when
 *   that message is the user's (so after a tool result the model answers in text).
 * With `parallelToolCalls: false` only the first of several mentioned tools is called. Arguments fill the
 * tool's JSON Schema deterministically: enums take their first value, strings a vocabulary word, numbers an
 * integer 1–100, booleans true, arrays one item, objects recurse; only `required` properties when the schema
 * lists them, else all.
 *
 * Usage counts tokens with {@link tokenize}: chat prompts are rendered `role: content` per line, tool
 * declarations appended as JSON.
 *
 * @throws GatewayError INVALID_ARGUMENT with reason `CONTEXT_LENGTH_EXCEEDED` (field `messages` or `prompt`) when
 *   the prompt, or the prompt plus `maxTokens`, exceeds the context length; INVALID_ARGUMENT (field `tool_choice`)
 *   when `toolChoice` names a tool not in `tools`; (field `messages`) when neither prompt nor messages is given.
 */
export function generateCompletion(input: GenerateInput): GenerateResult {
  const contextLength = input.contextLength ?? defaultEngineContextLength;
  const field = input.messages ? 'messages' : 'prompt';
  if (input.prompt === undefined && input.messages === undefined) {
    throw invalidArgument('either prompt or messages is required', { field: 'messages' });
  }
  const promptText = input.messages ? renderChatPrompt(input.messages, input.tools) : (input.prompt ?? '');
  const promptTokens = countTokens(promptText);
  if (promptTokens > contextLength || (input.maxTokens !== undefined && promptTokens + input.maxTokens > contextLength)) {
    throw invalidArgument(
      `This model's maximum context length is ${contextLength} tokens. However, you requested ` +
        `${promptTokens + (input.maxTokens ?? 0)} tokens (${promptTokens} in the ${field}, ${input.maxTokens ?? 0} in the completion). ` +
        `Please reduce the length of the ${field} or completion.`,
      { field, reason: 'CONTEXT_LENGTH_EXCEEDED' },
    );
  }
  const seedText =
    `${input.model}\u0000${promptText}\u0000${input.seed ?? 0}\u0000${input.choiceIndex ?? 0}` +
    (input.adapter !== undefined ? `\u0000adapter\u0000${input.adapter}` : '');
  const random = createPrng(seedText);
  const room = Math.min(input.maxTokens ?? Number.POSITIVE_INFINITY, contextLength - promptTokens);

  const toolCalls = input.messages ? chooseToolCalls(input, seedText) : [];
  if (toolCalls.length > 0) {
    const completionTokens = toolCalls.reduce((sum, call) => sum + countTokens(call.name) + countTokens(call.arguments), 0);
    return {
      text: '',
      pieces: [],
      toolCalls,
      finishReason: 'tool_calls',
      usage: usage(promptTokens, completionTokens),
    };
  }

  const naturalLength = 12 + Math.floor(random() * 37);
  let finishReason: FinishReason = 'stop';
  const probabilities = input.wordLogitBias ? wordProbabilities(input.wordLogitBias, input.temperature ?? 1) : undefined;
  const pickWord = probabilities ? () => vocabulary[sampleIndex(probabilities, random)] as string : () => pick(vocabulary, random);
  let pieces = tokenize(sentencePieces(naturalLength, random, pickWord).join(''));
  if (pieces.length > room) {
    pieces = pieces.slice(0, Math.max(0, room));
    finishReason = 'length';
  }
  let text = pieces.join('');
  const stops = input.stop === undefined ? [] : typeof input.stop === 'string' ? [input.stop] : input.stop;
  let cut = -1;
  for (const stop of stops) {
    if (stop.length === 0) continue;
    const at = text.indexOf(stop);
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  if (cut >= 0) {
    text = text.slice(0, cut);
    finishReason = 'stop';
    pieces = tokenize(text);
  }
  return { text, pieces, toolCalls: [], finishReason, usage: usage(promptTokens, pieces.length) };
}

/** Renders a conversation as the text the tokenizer counts (`role: content` lines, then tool declarations). */
export function renderChatPrompt(messages: readonly EngineChatMessage[], tools?: readonly GeneratorTool[]): string {
  const lines = messages.map((m) => {
    const calls = m.tool_calls?.map((c) => ` ${c.function.name}(${c.function.arguments})`).join('') ?? '';
    return `${m.role}: ${messageText(m)}${calls}`;
  });
  if (tools && tools.length > 0) lines.push(`tools: ${JSON.stringify(tools)}`);
  return lines.join('\n');
}

/** The text of a message: its string content, or its text parts joined. */
export function messageText(message: EngineChatMessage): string {
  const content = message.content;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t.length > 0)
    .join('\n');
}

function usage(promptTokens: number, completionTokens: number): TokenUsage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

function chooseToolCalls(input: GenerateInput, seedText: string): GeneratedToolCall[] {
  const tools = input.tools ?? [];
  const choice = input.toolChoice ?? 'auto';
  if (tools.length === 0 || choice === 'none') {
    if (typeof choice === 'object') {
      throw invalidArgument(`tool_choice names tool "${choice.name}" but no tools were given`, { field: 'tool_choice' });
    }
    return [];
  }
  let selected: GeneratorTool[];
  if (typeof choice === 'object') {
    const tool = tools.find((t) => t.name === choice.name);
    if (!tool) throw invalidArgument(`tool_choice names tool "${choice.name}", which is not among the tools`, { field: 'tool_choice' });
    selected = [tool];
  } else {
    const messages = input.messages ?? [];
    const last = messages[messages.length - 1];
    const lastText = last ? messageText(last).toLowerCase() : '';
    const mentioned = last?.role === 'user' ? tools.filter((t) => lastText.includes(t.name.toLowerCase())) : [];
    if (choice === 'required') selected = mentioned.length > 0 ? mentioned : [tools[0] as GeneratorTool];
    else selected = mentioned;
  }
  if (input.parallelToolCalls === false) selected = selected.slice(0, 1);
  return selected.map((tool, index) => {
    const random = createPrng(`${seedText}\u0000tool\u0000${tool.name}\u0000${index}`);
    const args = tool.parameters ? fillSchema(tool.parameters, random, 0) : {};
    return {
      id: `call_${hashHex(`${seedText}\u0000${tool.name}\u0000${index}`).slice(0, 24)}`,
      name: tool.name,
      arguments: JSON.stringify(args ?? {}),
    };
  });
}

function fillSchema(schema: JsonValue, random: () => number, depth: number): JsonValue {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || depth > 6) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] ?? null;
  if (schema.const !== undefined) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return pick(vocabulary, random);
    case 'integer':
    case 'number':
      return 1 + Math.floor(random() * 100);
    case 'boolean':
      return true;
    case 'array':
      return schema.items === undefined ? [] : [fillSchema(schema.items, random, depth + 1)];
    case 'null':
      return null;
    default: {
      const properties = schema.properties;
      if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return {};
      const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : undefined;
      const out: JsonObject = {};
      for (const [key, sub] of Object.entries(properties)) {
        if (required && !required.includes(key)) continue;
        out[key] = fillSchema(sub, random, depth + 1);
      }
      return out;
    }
  }
}

function sentencePieces(tokens: number, random: () => number, pickWord: () => string): string[] {
  const pieces: string[] = [];
  let sentenceStart = true;
  let wordsInSentence = 0;
  let sentenceLength = 5 + Math.floor(random() * 8);
  while (pieces.length < tokens) {
    const left = tokens - pieces.length;
    if (left === 1 || wordsInSentence >= sentenceLength) {
      pieces.push('.');
      sentenceStart = true;
      wordsInSentence = 0;
      sentenceLength = 5 + Math.floor(random() * 8);
      continue;
    }
    let word = pickWord();
    if (sentenceStart) word = word.charAt(0).toUpperCase() + word.slice(1);
    pieces.push(pieces.length === 0 ? word : ` ${word}`);
    sentenceStart = false;
    wordsInSentence += 1;
  }
  return pieces;
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

function hashHex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** mulberry32 seeded from a SHA-256 of the text: small, fast and the same on every platform. */
export function createPrng(seedText: string): () => number {
  let state = Number.parseInt(hashHex(seedText).slice(0, 8), 16) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
