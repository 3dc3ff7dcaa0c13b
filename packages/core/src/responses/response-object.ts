import type { TurnUsage } from './chat-translation.js';
import type { ResponseRequest } from './response-request.js';
import type { ConversationItem, IncompleteReason, ResponseError, ResponseObject, ResponseStatus, ResponseUsage } from './response-types.js';

/** Usage with both the specification's names (prompt/completion) and OpenAI's (input/output). */
export function responseUsage(usage: TurnUsage): ResponseUsage {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
  };
}

export interface ResponseOutcome {
  readonly status: ResponseStatus;
  readonly output: ConversationItem[];
  readonly usage: TurnUsage;
  readonly incompleteReason: IncompleteReason | null;
  readonly error: ResponseError | null;
}

/**
 * The response object: the outcome, and every request setting echoed with its default filled in.
 * `id` is null when the response is not stored. Times are Unix seconds.
 */
export function buildResponseObject(
  request: ResponseRequest,
  id: string | null,
  createdAtMs: number,
  completedAtMs: number | null,
  outcome: ResponseOutcome,
): ResponseObject {
  return {
    id,
    object: 'response',
    created_at: Math.floor(createdAtMs / 1000),
    completed_at: outcome.status === 'completed' && completedAtMs !== null ? Math.floor(completedAtMs / 1000) : null,
    status: outcome.status,
    error: outcome.error,
    incomplete_details: outcome.incompleteReason === null ? null : { reason: outcome.incompleteReason },
    model: request.model,
    output: outcome.output,
    previous_response_id: request.previousResponseId,
    usage: responseUsage(outcome.usage),
    instructions: request.instructions,
    max_output_tokens: request.maxOutputTokens,
    max_tool_calls: request.maxToolCalls,
    parallel_tool_calls: request.parallelToolCalls,
    reasoning: request.reasoning,
    store: request.store,
    temperature: request.temperature,
    text: request.text,
    tool_choice: request.toolChoice,
    tools: request.tools,
    top_p: request.topP,
    truncation: request.truncation,
    user: request.user,
    metadata: request.metadata,
    background: request.background,
    service_tier: request.serviceTier,
    presence_penalty: request.presencePenalty,
    frequency_penalty: request.frequencyPenalty,
    top_logprobs: request.topLogprobs,
    safety_identifier: request.safetyIdentifier,
    prompt_cache_key: request.promptCacheKey,
  };
}
