import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { ModelTarget } from '../ports/serving-directory.js';

/** One chat completion for a resolved model: the body is sent with the replica's served model id. */
export interface ChatCompletionCall {
  readonly target: ModelTarget;
  readonly body: JsonObject;
  /** Session-affinity key (the request's `user`). */
  readonly affinityKey?: string;
}

/** An engine's OpenAI error, with model ids already rewritten to the client's model name. */
export interface UpstreamError {
  readonly message: string;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;
}

/** What the replica answered: the completion, or its error status and body. */
export type ChatCompletionOutcome =
  | { readonly ok: true; readonly completion: JsonObject }
  | { readonly ok: false; readonly status: number; readonly error: UpstreamError };

/** A streamed answer: chat-completion chunks as they arrive, or the error status the replica answered first. */
export type ChatStreamOutcome =
  | { readonly ok: true; readonly chunks: AsyncIterable<JsonObject> }
  | { readonly ok: false; readonly status: number; readonly error: UpstreamError };

/**
 * How the Responses API reaches models: the same routing as `/inference/v1/chat/completions` (a ready
 * replica of the target's deployment leased from the serving directory, the same connection pool and
 * timeouts). The HTTP transport provides it over its inference proxy.
 *
 * Throws (no answer at all): UNAVAILABLE (no replica ready in time, connection failed),
 * DEADLINE_EXCEEDED (the replica did not answer in time), CANCELLED (`ctx.signal` aborted).
 */
export interface ChatModelClient {
  complete(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome>;
  /**
   * The same call streamed (`stream: true` with usage): each chunk as the replica sends it. The lease is
   * held until the chunks end or their iteration stops. Iterating throws UNAVAILABLE or DEADLINE_EXCEEDED
   * when the stream breaks, CANCELLED when `ctx.signal` aborts.
   */
  stream(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatStreamOutcome>;
}
