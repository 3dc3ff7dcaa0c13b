/**
 * Fitting a conversation into the model's context window. Prompt size is estimated with the reference
 * engine's tokenizer over the same rendering the engine counts (exact for the reference engine, an
 * estimate for others; an engine's own context-length error still triggers truncation, see the turn loop).
 * `truncation: "auto"` drops the oldest items until the prompt fits; `disabled` refuses with 400.
 */
import { invalidArgument, type GatewayError } from '../errors/index.js';
import { countTokens } from '../engine/tokenizer.js';
import { renderChatPrompt, type EngineChatMessage, type GeneratorTool } from '../engine/generate.js';
import { toChatMessages, type ChatMessage } from './chat-translation.js';
import type { ConversationItem } from './response-types.js';
import type { ChatFunction } from './tool-provider.js';

export interface FittedContext {
  /** The items kept (all of them unless truncated). */
  readonly items: readonly ConversationItem[];
  readonly messages: ChatMessage[];
  /** Estimated prompt tokens of `messages` with the tools. */
  readonly promptTokens: number;
}

/** A fitting whose prompt is tokenized only when its size is asked for (without a limit it may never be). */
class Fitting implements FittedContext {
  private tokens: number | undefined;

  constructor(
    readonly items: readonly ConversationItem[],
    readonly messages: ChatMessage[],
    private readonly functions: readonly ChatFunction[],
  ) {}

  get promptTokens(): number {
    this.tokens ??= estimatePromptTokens(this.messages, this.functions);
    return this.tokens;
  }
}

/** The prompt tokens a context length leaves: at least one output token must fit beside the prompt. */
export function promptLimit(contextLength: number | undefined): number | undefined {
  return contextLength === undefined ? undefined : contextLength - 1;
}

/** The 400 of a conversation that does not fit (`code: context_length_exceeded`). */
export function contextTooLong(detail: string): GatewayError {
  return invalidArgument(`The input exceeds the context window of this model: ${detail}`, { field: 'input', reason: 'CONTEXT_LENGTH_EXCEEDED' });
}

/** Estimated prompt tokens of chat messages with the offered functions. */
export function estimatePromptTokens(messages: readonly ChatMessage[], functions: readonly ChatFunction[]): number {
  const tools: GeneratorTool[] = functions.map((f) => ({
    name: f.name,
    ...(f.description !== undefined ? { description: f.description } : {}),
    ...(f.parameters !== undefined ? { parameters: f.parameters } : {}),
  }));
  return countTokens(renderChatPrompt(messages as unknown as EngineChatMessage[], tools));
}

/**
 * The items without the oldest `drop`, and without outputs whose function call was dropped (a tool
 * result the model never asked for would break the conversation).
 */
export function dropOldest(items: readonly ConversationItem[], drop: number): ConversationItem[] {
  const kept = items.slice(drop);
  const calls = new Set(kept.flatMap((item) => (item.type === 'function_call' ? [item.call_id] : [])));
  return kept.filter((item) => item.type !== 'function_call_output' || calls.has(item.call_id));
}

/**
 * Fits `items` into `limit` prompt tokens (the context length, less room for at least one output
 * token). Without a limit everything is kept (and nothing is tokenized until `promptTokens` is read). With truncation `auto` the fewest oldest items are
 * dropped (binary search: dropping more never makes the prompt longer); instructions always stay.
 * Throws INVALID_ARGUMENT `context_length_exceeded` with `disabled`, or when even the newest item alone
 * does not fit.
 */
export function fitContext(
  instructions: string | null,
  items: readonly ConversationItem[],
  functions: readonly ChatFunction[],
  limit: number | undefined,
  truncation: 'auto' | 'disabled',
): FittedContext {
  const measure = (kept: readonly ConversationItem[]): FittedContext => new Fitting(kept, toChatMessages(instructions, kept), functions);
  const whole = measure(items);
  if (limit === undefined || whole.promptTokens <= limit) return whole;
  if (truncation === 'disabled') {
    throw contextTooLong(`about ${whole.promptTokens} tokens of input for ${limit} (set truncation to auto to drop the oldest items)`);
  }
  let low = 1;
  let high = items.length - 1;
  let best: FittedContext | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const candidate = measure(dropOldest(items, middle));
    if (candidate.promptTokens <= limit) {
      best = candidate;
      high = middle - 1;
    } else {
      low = middle + 1;
    }
  }
  if (!best || best.items.length === 0) throw contextTooLong(`the newest item alone is longer than ${limit} tokens`);
  return best;
}
