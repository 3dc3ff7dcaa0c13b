/**
 * `POST /responses/compact`: a conversation (a stored response's, the request's input, or both) made
 * smaller. The model is asked for a summary of it; the answer is the conversation's user messages, as
 * they were, then one compaction item holding that summary. A following response takes the answer's
 * output as its input (with its new message): the compaction item reaches the model as a user message
 * giving the summary, in place of everything it summarised. Nothing is stored.
 */
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError } from '../errors/index.js';
import { clockMs, type Clock } from '../ports/clock.js';
import type { ModelTarget, ServingDirectory } from '../ports/serving-directory.js';
import { fromChatCompletion, type TurnUsage } from './chat-translation.js';
import { encodeCompaction } from './compaction-token.js';
import { contextTooLong, fitContext } from './context-window.js';
import type { ChatModelClient } from './model-client.js';
import { invalid, isAbsent, readEnum, readString } from './request-values.js';
import { newResponsesId } from './response-ids.js';
import { hasImageInput, parseInput } from './response-input.js';
import { responseUsage } from './response-object.js';
import { bodyObject, readModel } from './response-request.js';
import type { CompactedResponse, ConversationItem, MessageItem } from './response-types.js';
import { clientError, contextRetries, isContextLengthError } from './turn-loop.js';

/** A compact request, checked. */
export interface CompactRequest {
  readonly model: string;
  /** This request's own items (none when only `previous_response_id` is given). */
  readonly input: ConversationItem[];
  readonly previousResponseId: string | null;
  /** A system message for the summarising turn only. */
  readonly instructions: string | null;
}

/** The keys of the specification's compact body, and the OpenAI client's prompt-cache and tier settings (accepted, no effect). */
const compactKeys: ReadonlySet<string> = new Set([
  'model', 'input', 'previous_response_id', 'instructions', 'prompt_cache_key', 'prompt_cache_retention', 'service_tier',
]);

/** Parses a compact body. Throws INVALID_ARGUMENT naming the parameter. */
export function parseCompactRequest(raw: unknown): CompactRequest {
  const body = bodyObject(raw, compactKeys);
  const model = readModel(body);
  const previousResponseId = readString(body, 'previous_response_id', 256);
  const input = isAbsent(body.input) ? [] : parseInput(body.input);
  if (input.length === 0 && previousResponseId === null) {
    throw invalid('nothing to compact: give input items, a previous_response_id, or both', 'input', 'MISSING_REQUIRED_PARAMETER');
  }
  readString(body, 'prompt_cache_key', 256);
  readEnum(body, 'prompt_cache_retention', ['in_memory', '24h'] as const, null);
  readEnum(body, 'service_tier', ['auto', 'default', 'flex', 'scale', 'priority'] as const, null);
  return { model, input, previousResponseId, instructions: readString(body, 'instructions') };
}

/** What the model is asked, after the conversation, to compact it. */
export const compactionPrompt = [
  'Compact the conversation above so it can go on in a much smaller context.',
  'Write a summary that keeps everything needed to continue: what the user asked for and why, facts, names and numbers given,',
  'decisions made, results of tool calls, answers already given, and what is still open.',
  'Write only the summary, in plain prose, without addressing anyone.',
].join(' ');

/** Most tokens a summary may take (a quarter of a smaller context length). */
export const summaryTokens = 1024;

export class ResponseCompactor {
  constructor(
    private readonly directory: ServingDirectory,
    private readonly client: ChatModelClient,
    private readonly clock: Clock,
  ) {}

  /**
   * Compacts `conversation` (the previous response's conversation and output, then the request's input).
   * Throws NOT_FOUND (unknown model), INVALID_ARGUMENT (images for a model without image input, a
   * conversation whose newest item alone does not fit, a request the engine refuses), RESOURCE_EXHAUSTED
   * (the engine's 429), UNAVAILABLE or DEADLINE_EXCEEDED (no answer from the model).
   */
  async compact(ctx: RequestContext, request: CompactRequest, conversation: readonly ConversationItem[]): Promise<CompactedResponse> {
    const target = await this.directory.resolve(ctx, request.model, { facts: true });
    if (target.facts?.supportsImageInput !== true && hasImageInput(conversation)) {
      throw invalid(`${request.model} does not take image input (its supportsImageInput is not true)`, 'input', 'UNSUPPORTED_VALUE');
    }
    const createdAtMs = clockMs(this.clock);
    const { summary, usage } = await this.summarise(ctx, target, request.instructions, conversation);
    const kept = conversation.filter((item): item is MessageItem => item.type === 'message' && item.role === 'user');
    return {
      id: newResponsesId('resp'),
      object: 'response.compaction',
      created_at: Math.floor(createdAtMs / 1000),
      output: [...kept, { type: 'compaction', id: newResponsesId('cmp'), encrypted_content: encodeCompaction(summary) }],
      usage: responseUsage(usage),
    };
  }

  /**
   * One chat completion: the conversation (oldest items dropped when it does not fit beside the summary's
   * room), then the compaction prompt. The summary is the answer's text.
   */
  private async summarise(ctx: RequestContext, target: ModelTarget, instructions: string | null, conversation: readonly ConversationItem[]): Promise<{ summary: string; usage: TurnUsage }> {
    const ask: MessageItem = { type: 'message', id: newResponsesId('msg'), role: 'user', status: 'completed', content: [{ type: 'input_text', text: compactionPrompt }] };
    const contextLength = target.facts?.contextLength;
    const room = contextLength === undefined ? summaryTokens : Math.max(1, Math.min(summaryTokens, Math.floor(contextLength / 4)));
    let limit = contextLength === undefined ? undefined : contextLength - room;
    for (let attempt = 0; ; attempt += 1) {
      const fitted = fitContext(instructions, [...conversation, ask], [], limit, 'auto');
      if (fitted.items.length <= 1) throw contextTooLong('the newest item alone leaves no room for the summary');
      const body: JsonObject = { model: target.model, messages: fitted.messages, max_tokens: room };
      const outcome = await this.client.complete(ctx, { target, body });
      if (outcome.ok) return summaryOf(outcome.completion);
      if (!isContextLengthError(outcome.status, outcome.error)) throw clientError(outcome.status, outcome.error);
      if (attempt >= contextRetries) throw contextTooLong(outcome.error.message);
      limit = Math.floor(fitted.promptTokens * 0.8);
    }
  }
}

/** The summary text and usage of the summarising completion. UNAVAILABLE when the replica answered without a message. */
function summaryOf(completion: JsonObject): { summary: string; usage: TurnUsage } {
  let items: ConversationItem[];
  let usage: TurnUsage;
  try {
    ({ items, usage } = fromChatCompletion(completion, false, 0));
  } catch {
    throw new GatewayError(Code.UNAVAILABLE, 'the model replica answered without a message', { reason: 'BAD_UPSTREAM_ANSWER' });
  }
  const parts = items.flatMap((item) => (item.type === 'message' ? item.content : []));
  const summary = parts.map((part) => (part.type === 'output_text' ? part.text : '')).join('');
  return { summary, usage };
}
