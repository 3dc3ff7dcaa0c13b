/**
 * The turns of one response: ask the model (a chat completion), record its output, run the calls a
 * gateway tool session handles and ask again, until the model answers, calls a client's function, or a
 * limit stops it (max_output_tokens, max_tool_calls → incomplete). A failed upstream ends the response
 * as `failed`; a request the engine refuses (4xx) is the client's error and is thrown.
 */
import { Code, GatewayError, invalidArgument, isGatewayError, resourceExhausted } from '../errors/index.js';
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { ModelTarget } from '../ports/serving-directory.js';
import { chatToolChoice, chatTools, fromChatCompletion, offeredFunctions, type TranslatedTurn, type TurnUsage } from './chat-translation.js';
import { ChatStreamTurn } from './chat-stream-turn.js';
import type { ResponseEventWriter } from './response-events.js';
import { contextTooLong, fitContext, promptLimit, type FittedContext } from './context-window.js';
import type { ChatModelClient, UpstreamError } from './model-client.js';
import type { ResponseRequest } from './response-request.js';
import type { ConversationItem, FunctionCallItem, IncompleteReason, McpApprovalRequestItem, McpCallItem, ResponseError } from './response-types.js';
import { approvedPendingCalls } from './mcp-input.js';
import { newResponsesId } from './response-ids.js';
import type { ChatFunction, ToolEventStream, ToolSession } from './tool-provider.js';

/** Most model turns in one response: a guard against a model that calls gateway tools forever. */
export const maxTurns = 32;
/** Retries with a smaller window after the engine itself said the prompt is too long (truncation auto). */
export const contextRetries = 3;

export interface TurnLoopInput {
  readonly request: ResponseRequest;
  /** The conversation before this response's output: earlier items and this request's input. */
  readonly context: readonly ConversationItem[];
  /** Where the turns go; its facts' context length (when known) bounds the prompt and the output. */
  readonly target: ModelTarget;
  /**
   * `context` already fitted into the window with the declared functions (by the service's prepare): the
   * first turn sends it as is unless the session adds functions or items.
   */
  readonly fitted?: FittedContext;
  readonly session?: ToolSession;
}

export interface TurnLoopResult {
  readonly status: 'completed' | 'incomplete' | 'failed';
  readonly output: ConversationItem[];
  readonly usage: TurnUsage;
  readonly incompleteReason: IncompleteReason | null;
  readonly error: ResponseError | null;
}

export const zeroUsage: TurnUsage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, reasoningTokens: 0 };

function addUsage(a: TurnUsage, b: TurnUsage): TurnUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

/** True when an engine's 4xx says the prompt does not fit (vLLM, the reference engine, OpenAI). */
export function isContextLengthError(status: number, error: UpstreamError): boolean {
  if (status !== 400 && status !== 413 && status !== 422) return false;
  return error.code === 'context_length_exceeded' || /context length|context window|maximum context/i.test(error.message);
}

/** The error object of a failed response for something thrown while asking the model. */
function failureOf(error: unknown): ResponseError {
  if (isGatewayError(error)) {
    return { type: 'server_error', code: (error.reason ?? error.code).toLowerCase(), message: error.message };
  }
  return { type: 'server_error', code: 'server_error', message: 'the model turn failed' };
}

/** What a model turn answered: a whole completion, or chunks to stream. */
type TurnAnswer = { readonly completion: JsonObject } | { readonly chunks: AsyncIterable<JsonObject> };

/** Codes thrown by the model client that mean "no answer from the model": the response fails. */
const upstreamFailures: ReadonlySet<Code> = new Set([Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED, Code.INTERNAL, Code.UNKNOWN, Code.DATA_LOSS]);

export class TurnLoop {
  constructor(private readonly client: ChatModelClient) {}

  /**
   * Runs the turns. With `events` the model's answers are streamed and every output item is sent as it
   * forms; a stream that breaks ends the response `failed` with what it had produced.
   */
  async run(ctx: RequestContext, input: TurnLoopInput, events?: ResponseEventWriter): Promise<TurnLoopResult> {
    const { request, session } = input;
    const functions = offeredFunctions(request.tools, session?.functions);
    const output: ConversationItem[] = [...(session?.items ?? [])];
    if (events && session?.streamItems) session.streamItems(events);
    else for (const item of output) events?.itemWhole(item);
    const withReasoning = request.reasoning.effort !== null && request.reasoning.effort !== 'none';
    let usage = zeroUsage;
    // Calls the client approved (answering a previous response's approval requests) run before the first turn.
    const approved = approvedPendingCalls(input.context);
    for (const request of approved) output.push(...(await this.runApproved(ctx, session, request, events)));
    let toolCalls = approved.length;
    let fitted = approved.length > 0 || (session && (session.functions.length > 0 || session.items.length > 0)) ? undefined : input.fitted;
    const end = (status: TurnLoopResult['status'], incompleteReason: IncompleteReason | null = null, error: ResponseError | null = null): TurnLoopResult =>
      ({ status, output, usage, incompleteReason, error });

    for (let turn = 0; turn < maxTurns; turn += 1) {
      const budget = request.maxOutputTokens === null ? null : request.maxOutputTokens - usage.completionTokens;
      if (budget !== null && budget <= 0) return end('incomplete', 'max_output_tokens');
      let answer: TurnAnswer;
      try {
        answer = await this.ask(ctx, input, [...input.context, ...output], functions, budget, events !== undefined, fitted);
        fitted = undefined;
      } catch (error) {
        if (isGatewayError(error) && !upstreamFailures.has(error.code)) throw error;
        if (!isGatewayError(error) && ctx.signal?.aborted) throw error;
        return end('failed', null, failureOf(error));
      }
      // Calls beyond max_tool_calls are left out of the turn (never streamed): the response ends incomplete.
      const allowance = request.maxToolCalls === null ? Number.POSITIVE_INFINITY : request.maxToolCalls - toolCalls;
      let translated: TranslatedTurn;
      if ('completion' in answer) {
        try {
          translated = fromChatCompletion(answer.completion, withReasoning, allowance);
        } catch {
          return end('failed', null, { type: 'server_error', code: 'bad_upstream_answer', message: 'the model replica answered without a message' });
        }
      } else {
        const streamed = new ChatStreamTurn(events!, withReasoning, allowance, session ? (name) => session.handles(name) : undefined);
        try {
          for await (const chunk of answer.chunks) {
            streamed.push(chunk);
            await events!.ready();
          }
          translated = streamed.finish();
        } catch (error) {
          if (ctx.signal?.aborted || (isGatewayError(error) && error.code === Code.CANCELLED)) throw error;
          output.push(...streamed.abandon());
          return end('failed', null, failureOf(error));
        }
      }
      usage = addUsage(usage, translated.usage);
      output.push(...translated.items);
      if (translated.finishReason === 'length') return end('incomplete', 'max_output_tokens');
      if (translated.finishReason === 'content_filter') return end('incomplete', 'content_filter');

      const calls = translated.items.filter((item): item is FunctionCallItem => item.type === 'function_call');
      const limited = translated.droppedCalls > 0;
      if (calls.length === 0 && !limited) return end('completed');
      toolCalls += calls.length;
      const gatewayCalls = session ? calls.filter((call) => session.handles(call.name)) : [];
      if (gatewayCalls.length > 0) {
        // The calls the session ran give way to the items recording them and their results, after the
        // turn's other items: where a streamed response announced them (the session sends them as it runs them).
        const executed = await this.execute(ctx, session!, gatewayCalls, request.parallelToolCalls, events);
        const ran: ReadonlySet<ConversationItem> = new Set(gatewayCalls);
        const kept = output.filter((item) => !ran.has(item));
        output.splice(0, output.length, ...kept, ...gatewayCalls.flatMap((call) => executed.get(call) ?? []));
      }
      if (limited) return end('incomplete', 'max_tool_calls');
      // A call waiting for the client's approval ends the response, as does one only the client can answer:
      // the client continues with its approval or its output.
      if (gatewayCalls.length < calls.length || output.some((item) => item.type === 'mcp_approval_request')) return end('completed');
    }
    return end('incomplete', 'max_tool_calls');
  }

  /**
   * One chat completion over the fitted conversation (`prefitted`: the first attempt's, fitted already);
   * retries smaller windows when the engine says it is too long.
   */
  private async ask(
    ctx: RequestContext, input: TurnLoopInput, items: readonly ConversationItem[], functions: readonly ChatFunction[], budget: number | null, stream: boolean,
    prefitted: FittedContext | undefined,
  ): Promise<TurnAnswer> {
    const { request } = input;
    const contextLength = input.target.facts?.contextLength;
    let limit = promptLimit(contextLength);
    for (let attempt = 0; ; attempt += 1) {
      const fitted = attempt === 0 && prefitted ? prefitted : fitContext(request.instructions, items, functions, limit, request.truncation);
      const body = this.chatBody(input.target, request, fitted, functions, budget, contextLength);
      const call = { target: input.target, body, ...(request.user !== null ? { affinityKey: request.user } : {}) };
      const outcome = stream ? await this.client.stream(ctx, call) : await this.client.complete(ctx, call);
      if (outcome.ok) return 'chunks' in outcome ? { chunks: outcome.chunks } : { completion: outcome.completion };
      if (isContextLengthError(outcome.status, outcome.error)) {
        if (request.truncation === 'disabled') throw contextTooLong(outcome.error.message);
        if (attempt >= contextRetries || fitted.items.length <= 1) throw contextTooLong(outcome.error.message);
        limit = Math.floor(fitted.promptTokens * 0.8);
        continue;
      }
      throw clientError(outcome.status, outcome.error);
    }
  }

  /** The chat-completions body of one turn, for the target's model (without a routing `#deployment` suffix). */
  private chatBody(
    target: ModelTarget, request: ResponseRequest, fitted: FittedContext, functions: readonly ChatFunction[], budget: number | null, contextLength: number | undefined,
  ): JsonObject {
    const body: JsonObject = {
      model: target.model,
      messages: fitted.messages,
      temperature: request.temperature,
      top_p: request.topP,
    };
    if (request.presencePenalty !== 0) body.presence_penalty = request.presencePenalty;
    if (request.frequencyPenalty !== 0) body.frequency_penalty = request.frequencyPenalty;
    if (budget !== null) {
      const room = contextLength === undefined ? budget : Math.max(1, Math.min(budget, contextLength - fitted.promptTokens));
      body.max_tokens = room;
    }
    if (functions.length > 0 && request.toolChoice !== 'none') {
      body.tools = chatTools(functions);
      const choice = chatToolChoice(request.toolChoice);
      if (choice !== undefined) body.tool_choice = choice;
      body.parallel_tool_calls = request.parallelToolCalls;
    }
    if (request.user !== null) body.user = request.user;
    if (request.topLogprobs > 0) {
      body.logprobs = true;
      body.top_logprobs = request.topLogprobs;
    }
    if (request.reasoning.effort !== null) body.reasoning_effort = request.reasoning.effort;
    const format = request.text.format;
    if (format.type === 'json_object') body.response_format = { type: 'json_object' };
    else if (format.type === 'json_schema') {
      body.response_format = {
        type: 'json_schema',
        json_schema: {
          name: format.name,
          schema: format.schema,
          ...(format.description !== null ? { description: format.description } : {}),
          strict: format.strict,
        },
      };
    }
    return body;
  }

  /**
   * Runs one approved call through the session; when no session offers its tool (the request no longer
   * declares the server), the call is recorded as failed, which the model reads.
   */
  private async runApproved(
    ctx: RequestContext, session: ToolSession | undefined, request: McpApprovalRequestItem, events: ToolEventStream | undefined,
  ): Promise<ConversationItem[]> {
    const ran = await session?.runApproved?.(ctx, request, events);
    if (ran) return ran;
    const item: McpCallItem = {
      type: 'mcp_call', id: newResponsesId('mcp'), server_label: request.server_label, name: request.name, arguments: request.arguments,
      output: null, error: `the approved tool ${request.name} of MCP server ${request.server_label} is not offered by this request's tools: declare the server to run it`,
      approval_request_id: request.id, status: 'failed',
    };
    if (events) events.itemDone(events.itemAdded(item), item);
    return [item];
  }

  /**
   * Runs gateway tool calls, side by side when parallel tool calls are allowed (each announces its items
   * before its first await, so a stream shows them in call order): each call's items.
   */
  private async execute(
    ctx: RequestContext, session: ToolSession, calls: readonly FunctionCallItem[], parallel: boolean, events: ToolEventStream | undefined,
  ): Promise<Map<FunctionCallItem, ConversationItem[]>> {
    const results = new Map<FunctionCallItem, ConversationItem[]>();
    if (parallel) {
      const all = await Promise.all(calls.map((call) => session.execute(ctx, call, events)));
      calls.forEach((call, i) => results.set(call, all[i]!));
    } else {
      for (const call of calls) results.set(call, await session.execute(ctx, call, events));
    }
    return results;
  }
}

/** An engine's refusal of the request (not a failure of the engine): the client's error. */
export function clientError(status: number, error: UpstreamError): GatewayError {
  const options = { reason: (error.code ?? 'upstream_rejected').toUpperCase(), ...(error.param !== null ? { field: error.param } : {}) };
  if (status === 429) return resourceExhausted(error.message, options);
  if (status >= 400 && status < 500 && status !== 404 && status !== 408) return invalidArgument(error.message, options);
  // The transport already replaced a 5xx's text by a generic one; other statuses here are the replica's fault too.
  const message = status >= 500 ? error.message : `the model replica failed (HTTP ${status})`;
  return new GatewayError(Code.UNAVAILABLE, message, { reason: (error.code ?? 'upstream_error').toUpperCase() });
}
