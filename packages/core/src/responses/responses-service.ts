/**
 * The Responses API's operations: create (one or more model turns through the same routing as chat
 * completions), retrieve, delete, list, and a response's input items. Every operation acts in the
 * caller's account: another account's response id is not found.
 */
import type { RequestContext } from '../contracts/request-context.js';
import { authorize } from '../auth/permissions.js';
import { Code, GatewayError, isGatewayError, unauthenticated } from '../errors/index.js';
import { clockMs, type Clock } from '../ports/clock.js';
import type { ModelTarget, ServingDirectory } from '../ports/serving-directory.js';
import type { ResourceStore, Storage } from '../ports/storage.js';
import { handedOverReason, type QueueJobContext } from '../workers/queue-handler.js';
import type { QueueWakeups } from '../workers/queue-wakeups.js';
import { backgroundResponseJob, responseErrorOf, type BackgroundResponseRunner } from './background-responses.js';
import type { ChatModelClient } from './model-client.js';
import { invalid } from './request-values.js';
import { newResponsesId } from './response-ids.js';
import { checkToolOutputs, hasImageInput } from './response-input.js';
import { checkApprovalResponses } from './mcp-input.js';
import { responseListBody, pageInputItems, parseResponseListParams, type ResponseListParams } from './response-list.js';
import { buildResponseObject, type ResponseOutcome } from './response-object.js';
import { ResponseEventWriter, type ResponseEventSink } from './response-events.js';
import { parseResponseRequest, type ResponseRequest } from './response-request.js';
import { isActiveStatus, ResponseStore, responseNotFound, type StoredBackgroundResponse } from './response-store.js';
import type { CompactedResponse, ConversationItem, ResponseList, ResponseObject } from './response-types.js';
import { checkSessionNames, type ResponseToolProvider, type ToolSession } from './tool-provider.js';
import { TurnLoop, zeroUsage } from './turn-loop.js';
import { fitContext, promptLimit, type FittedContext } from './context-window.js';
import { offeredFunctions } from './chat-translation.js';
import { ResponseCompactor, parseCompactRequest } from './compaction.js';

export interface ResponsesServiceDependencies {
  /** Where responses are stored (the storage's resource store). */
  readonly resources: ResourceStore;
  /** Routes a request's model and tells its context length and image support ({@link ModelTarget.facts}). */
  readonly directory: ServingDirectory;
  readonly client: ChatModelClient;
  readonly clock: Clock;
  /** The gateway-run tool provider (MCP), at most one. None: only function tools. */
  readonly toolProviders?: readonly ResponseToolProvider[];
  /**
   * The storage's transactions and durable queue: enables `background: true` (the response is stored
   * with its job in one transaction). Without it, background is refused with 400.
   */
  readonly storage?: Storage;
  /**
   * How often a running background response re-reads its stored status, to notice a cancel made on
   * another gateway instance (one made on this instance stops it at once). Default 500 ms.
   */
  readonly cancelPollMs?: number;
  /** Woken after a background response was enqueued, so this process's queue workers start it at once. */
  readonly queueWakeups?: QueueWakeups;
}

/** The default period of a running background response's cancel check. */
export const defaultCancelPollMs = 500;

/** A response checked and routed, ready to run ({@link ResponsesService.prepare}). */
export interface PreparedResponse {
  readonly accountId: string;
  readonly request: ResponseRequest;
  /** The earlier conversation and this request's input. */
  readonly context: ConversationItem[];
  /** Where the model turns go, with the model's facts when the directory knows them. */
  readonly target: ModelTarget;
  /** The context fitted into the model's window with the declared functions: the first turn sends it. */
  readonly fitted: FittedContext;
  readonly createdAtMs: number;
  /** `resp_…`, or null when the response is not stored. */
  readonly id: string | null;
}

/** The body of a successful delete, as the reference API answers it. */
export const responseDeletedBody = { message: 'Response deleted successfully' } as const;

export class ResponsesService implements BackgroundResponseRunner {
  private readonly store: ResponseStore;
  private readonly loop: TurnLoop;
  private readonly providers: readonly ResponseToolProvider[];
  private readonly compactor: ResponseCompactor;
  /** Last record time handed out: responses created by one instance list in creation order. */
  private lastCreateMs = 0;
  /** Background responses this instance runs, by record name: a cancel made here aborts them at once. */
  private readonly running = new Map<string, AbortController>();

  /** Throws when more than one tool provider is given: requests could not tell which runs a tool. */
  constructor(private readonly deps: ResponsesServiceDependencies) {
    this.store = new ResponseStore(deps.resources, deps.storage);
    this.loop = new TurnLoop(deps.client);
    this.providers = deps.toolProviders ?? [];
    this.compactor = new ResponseCompactor(deps.directory, deps.client, deps.clock);
    if (this.providers.length > 1) {
      throw new Error(`the Responses API runs one gateway-tool provider, but ${this.providers.length} were contributed to responseToolProvidersToken`);
    }
  }

  /**
   * Creates a response from a request body, not streamed. Validation errors, an unknown model or previous
   * response, and requests the engine refuses are thrown (INVALID_ARGUMENT, NOT_FOUND,
   * FAILED_PRECONDITION, RESOURCE_EXHAUSTED); a model that cannot be reached gives a response with status
   * `failed`. A body with `stream: true` is refused: stream with {@link prepare} and {@link run}.
   */
  async create(ctx: RequestContext, body: unknown): Promise<ResponseObject> {
    const prepared = await this.prepare(ctx, body);
    if (prepared.request.stream) throw invalid('stream: true needs a streaming caller (Server-Sent Events over HTTP)', 'stream', 'UNSUPPORTED_VALUE');
    return this.run(ctx, prepared);
  }

  /**
   * Everything a response needs before its first model turn, with every check that answers an error
   * rather than a failed response: the body's rules, the previous response, the model's routing and
   * image support. A transport starts streaming only after this succeeded.
   */
  async prepare(ctx: RequestContext, body: unknown): Promise<PreparedResponse> {
    const accountId = this.accountOf(ctx);
    const request = parseResponseRequest(body, this.providers);
    if (request.background) this.checkBackground(request);
    const createdAtMs = clockMs(this.deps.clock);
    // Read side by side; a refused previous response is told before a refused model, whichever came first.
    const [history, routed] = await Promise.allSettled([
      this.history(ctx, accountId, request),
      this.deps.directory.resolve(ctx, request.model, { facts: true }),
    ]);
    if (history.status === 'rejected') throw history.reason;
    if (routed.status === 'rejected') throw routed.reason;
    const target = routed.value;
    const context = [...history.value, ...request.input];
    if (target.facts?.supportsImageInput !== true && hasImageInput(context)) {
      throw invalid(`${request.model} does not take image input (its supportsImageInput is not true)`, 'input', 'UNSUPPORTED_VALUE');
    }
    // A conversation that cannot fit is refused here, before a stream starts (the turns fit again as the output grows).
    const fitted = fitContext(request.instructions, context, offeredFunctions(request.tools), promptLimit(target.facts?.contextLength), request.truncation);
    return { accountId, request, context, target, fitted, createdAtMs, id: request.store ? newResponsesId('resp') : null };
  }

  /**
   * Runs a prepared response's turns and stores it (unless `store` is false). With `sink` every event
   * of the stream is sent, from `response.created` (once the gateway tools' sessions are open: their
   * errors are still thrown) to the final event; after `response.created` an error becomes a `failed`
   * response instead of being thrown. CANCELLED (the caller went away) is thrown and nothing is stored.
   */
  async run(ctx: RequestContext, prepared: PreparedResponse, sink?: ResponseEventSink): Promise<ResponseObject> {
    if (prepared.request.background) return this.enqueue(ctx, prepared);
    const { request, id, createdAtMs } = prepared;
    const session = await this.openSession(ctx, request);
    const events = sink ? new ResponseEventWriter(sink) : undefined;
    let outcome: ResponseOutcome;
    try {
      events?.started(buildResponseObject(request, id, createdAtMs, null, { status: 'in_progress', output: [], usage: zeroUsage, incompleteReason: null, error: null }));
      const { context, target, fitted } = prepared;
      const input = { request, context, target, fitted, ...(session ? { session } : {}) };
      outcome = await this.loop.run(ctx, input, events).catch((error: unknown) => {
        // Once the stream started, a refusal can only be told in it: the response fails.
        if (!events || !isGatewayError(error) || error.code === Code.CANCELLED) throw error;
        return failedOutcome(error);
      });
    } finally {
      await session?.close();
    }
    const response = buildResponseObject(request, id, createdAtMs, clockMs(this.deps.clock), outcome);
    if (id !== null) await this.store.save(ctx, prepared.accountId, response, prepared.context, this.nextCreateMs(createdAtMs));
    events?.finished(response);
    return response;
  }

  /**
   * Cancels a background response of the caller's account that is still queued or in progress: it is
   * stored `cancelled` and its worker, on whichever instance, stops its generation. A response already
   * in a terminal status is answered unchanged (cancelling twice is idempotent, as the reference API
   * does). NOT_FOUND for an unknown id; INVALID_ARGUMENT for a response not created with `background: true`.
   */
  async cancel(ctx: RequestContext, id: string): Promise<ResponseObject> {
    const accountId = this.accountOf(ctx);
    const stored = await this.store.load(ctx, accountId, id);
    const name = this.store.nameOf(accountId, id);
    if (!stored || name === undefined) throw responseNotFound(id);
    if (!stored.response.background) throw invalid('Only responses created with background=true can be cancelled', null, 'UNSUPPORTED_VALUE');
    const cancelled = await this.store.transition(ctx, name, (current) => (isActiveStatus(current.status) ? { ...current, status: 'cancelled' } : undefined));
    if (!cancelled) throw responseNotFound(id);
    if (cancelled.status === 'cancelled') this.running.get(name)?.abort(cancelledError());
    return cancelled;
  }

  /**
   * Runs the stored background response `name` for its queue job: marks it in_progress, runs its turns
   * (aborted when it is cancelled: on this instance at once, from another one within `cancelPollMs`)
   * and stores the outcome in the same transaction as the job's fenced completion, unless a cancel came
   * first. A response no longer queued or in progress (cancelled before it started, or finished by an
   * earlier attempt) is left as it is. Throws what the queue should retry; CANCELLED when the job was lost.
   */
  async runBackground(jobCtx: QueueJobContext, name: string): Promise<void> {
    const stored = await this.store.loadBackground(jobCtx, name);
    if (!stored || !isActiveStatus(stored.response.status)) return;
    // A retried attempt (its worker died) starts over: the output so far is dropped.
    const started = await this.store.transition(jobCtx, name, (current) =>
      isActiveStatus(current.status) ? { ...current, status: 'in_progress', output: [], error: null, incomplete_details: null } : undefined);
    if (started?.status !== 'in_progress') return;
    const stop = new AbortController();
    const relay = () => stop.abort(jobCtx.signal.reason);
    jobCtx.signal.addEventListener('abort', relay, { once: true });
    this.running.set(name, stop);
    const watch = this.watchCancel(jobCtx, name, stop);
    try {
      const ctx: RequestContext = { requestId: jobCtx.requestId, principal: stored.work.principal, signal: stop.signal };
      const outcome = await this.backgroundOutcome(ctx, stored).catch((error: unknown) => {
        if (stop.signal.aborted) return undefined;
        throw error;
      });
      // Whatever the turns made of an abort (thrown, or a failed turn), an aborted run stores nothing.
      if (outcome === undefined || stop.signal.aborted) {
        const reason: unknown = stop.signal.reason;
        if (isGatewayError(reason) && reason.reason === cancelledReason) return; // Cancelled: the record already says so.
        throw reason ?? cancelledError(); // The job was lost, or this instance stops serving: the queue retries it.
      }
      const finished = buildResponseObject(stored.work.request, started.id, started.created_at * 1000, clockMs(this.deps.clock), outcome);
      await jobCtx.commit((tx) => this.store.transition(jobCtx, name, (current) => (current.status === 'in_progress' ? finished : undefined), tx));
    } finally {
      clearInterval(watch);
      jobCtx.signal.removeEventListener('abort', relay);
      if (this.running.get(name) === stop) this.running.delete(name);
    }
  }

  /**
   * Aborts the background responses this instance is running, for a server that stops serving (its model
   * client is closing): each job's attempt is handed back, due at once, and the queue runs the response
   * again on another instance (this one's workers no longer claim it) or here after a restart, instead of
   * storing it failed.
   */
  handOverBackground(): void {
    for (const running of this.running.values()) {
      running.abort(new GatewayError(Code.UNAVAILABLE, 'this gateway instance stopped serving the Responses API; the background response runs again', { reason: handedOverReason }));
    }
  }

  /** A stored response of the caller's account. NOT_FOUND otherwise. */
  async get(ctx: RequestContext, id: string): Promise<ResponseObject> {
    const accountId = this.accountOf(ctx);
    const stored = await this.store.load(ctx, accountId, id);
    if (!stored) throw responseNotFound(id);
    return stored.response;
  }

  /** Deletes a stored response of the caller's account. NOT_FOUND otherwise. */
  async delete(ctx: RequestContext, id: string): Promise<typeof responseDeletedBody> {
    await this.store.remove(ctx, this.accountOf(ctx), id);
    return responseDeletedBody;
  }

  /** The caller's stored responses, newest first (`limit`, `after`, `before`). */
  async list(ctx: RequestContext, params: ResponseListParams): Promise<ResponseList<ResponseObject>> {
    const accountId = this.accountOf(ctx);
    const options = parseResponseListParams(params);
    const page = await this.store.list(ctx, accountId, options);
    return responseListBody(page.responses, page.hasMore);
  }

  /** The items a stored response was created from (the earlier conversation and its input), newest first by default. */
  async inputItems(ctx: RequestContext, id: string, params: ResponseListParams): Promise<ResponseList<ConversationItem>> {
    const accountId = this.accountOf(ctx);
    const options = parseResponseListParams(params);
    const stored = await this.store.load(ctx, accountId, id);
    if (!stored) throw responseNotFound(id);
    return pageInputItems(stored.conversation, options);
  }

  /** Background needs the storage (it is stored with its job) and is polled, not streamed. */
  private checkBackground(request: ResponseRequest): void {
    if (!this.deps.storage) throw invalid('background: true is not supported by this gateway (it has no durable queue); send background: false', 'background', 'UNSUPPORTED_VALUE');
    if (!request.store) throw invalid('background: true needs store: true (a background response is stored so it can be polled)', 'store', 'UNSUPPORTED_VALUE');
    if (request.stream) {
      throw invalid('stream: true with background: true is not supported: create the background response without stream and poll GET /inference/v1/responses/{id}', 'stream', 'UNSUPPORTED_VALUE');
    }
  }

  /** Stores a background response `queued` with its job (one transaction) and answers it. */
  private async enqueue(ctx: RequestContext, prepared: PreparedResponse): Promise<ResponseObject> {
    const { request, id, createdAtMs, accountId, context } = prepared;
    const principal = ctx.principal;
    if (id === null || !principal) throw new Error('a background response is stored and has a caller');
    const queued = buildResponseObject(request, id, createdAtMs, null, { status: 'queued', output: [], usage: zeroUsage, incompleteReason: null, error: null });
    await this.store.saveBackground(ctx, accountId, queued, context, this.nextCreateMs(createdAtMs), { request, principal }, backgroundResponseJob);
    this.deps.queueWakeups?.wake();
    return queued;
  }

  /**
   * A background response's turns, from its stored request and conversation. What a foreground request
   * would have been refused for now (the model undeployed, a refusal by the engine) fails the response.
   * Throws CANCELLED once `ctx.signal` aborted.
   */
  private async backgroundOutcome(ctx: RequestContext, stored: StoredBackgroundResponse): Promise<ResponseOutcome> {
    const { request } = stored.work;
    const context = stored.conversation;
    try {
      const target = await this.deps.directory.resolve(ctx, request.model, { facts: true });
      const fitted = fitContext(request.instructions, context, offeredFunctions(request.tools), promptLimit(target.facts?.contextLength), request.truncation);
      const session = await this.openSession(ctx, request);
      try {
        return await this.loop.run(ctx, { request, context, target, fitted, ...(session ? { session } : {}) });
      } finally {
        await session?.close();
      }
    } catch (error) {
      if (!isGatewayError(error) || error.code === Code.CANCELLED || ctx.signal?.aborted) throw error;
      // Transient trouble outside the model (the loop itself fails the response for an unreachable
      // replica) is retried by the queue; everything else is this response's failure.
      if (error.code === Code.UNAVAILABLE || error.code === Code.ABORTED) throw error;
      return failedOutcome(error);
    }
  }

  /** Re-reads the record every `cancelPollMs`: a cancel made on another instance (or a delete) aborts `stop`. */
  private watchCancel(ctx: RequestContext, name: string, stop: AbortController): NodeJS.Timeout {
    let reading = false;
    return setInterval(() => {
      if (reading || stop.signal.aborted) return;
      reading = true;
      this.deps.resources
        .get(ctx, name)
        .then((record) => {
          const status = (record?.data.response as { status?: unknown } | undefined)?.status;
          if (status !== 'in_progress') stop.abort(cancelledError());
        })
        .catch(() => undefined) // A failed read is tried again on the next tick.
        .finally(() => {
          reading = false;
        });
    }, this.deps.cancelPollMs ?? defaultCancelPollMs);
  }

  /**
   * `POST /responses/compact`: the conversation (a stored response of the caller's account, then the
   * body's input) compacted to its user messages and one compaction item (`ResponseCompactor`).
   */
  async compact(ctx: RequestContext, body: unknown): Promise<CompactedResponse> {
    const accountId = this.accountOf(ctx);
    const request = parseCompactRequest(body);
    const history = await this.history(ctx, accountId, request);
    return this.compactor.compact(ctx, request, [...history, ...request.input]);
  }

  private accountOf(ctx: RequestContext): string {
    const principal = ctx.principal;
    if (!principal) throw unauthenticated('the Responses API needs an authenticated caller');
    authorize(ctx, 'inference.use', { accountId: principal.accountId });
    return principal.accountId;
  }

  /** The conversation a previous response ended with: its input items and its output. */
  private async history(ctx: RequestContext, accountId: string, request: Pick<ResponseRequest, 'previousResponseId' | 'input'>): Promise<ConversationItem[]> {
    if (request.previousResponseId === null) {
      checkToolOutputs([], request.input);
      checkApprovalResponses([], request.input);
      return [];
    }
    const previous = await this.store.load(ctx, accountId, request.previousResponseId);
    if (!previous) throw responseNotFound(request.previousResponseId, 'previous_response_id');
    if (isActiveStatus(previous.response.status)) {
      // A background response that has not ended has no answer yet to continue from.
      throw invalid(
        `Previous response with id '${request.previousResponseId}' is still ${previous.response.status}: wait until it ends (poll GET /inference/v1/responses/{id}) before continuing it.`,
        'previous_response_id',
      );
    }
    const history = [...previous.conversation, ...previous.response.output];
    checkToolOutputs(history, request.input);
    checkApprovalResponses(history, request.input);
    return history;
  }

  /** The provider's session over the request's tools of its types (none without such tools). */
  private async openSession(ctx: RequestContext, request: ResponseRequest): Promise<ToolSession | undefined> {
    const provider = this.providers[0];
    const tools = provider ? request.tools.filter((tool) => provider.types.includes(tool.type)) : [];
    if (!provider || tools.length === 0) return undefined;
    const session = await provider.open(ctx, tools);
    try {
      checkSessionNames(request.tools, session);
    } catch (error) {
      await session.close();
      throw error;
    }
    return session;
  }

  /** Record times strictly increase within this instance, so same-millisecond responses keep their order. */
  private nextCreateMs(createdAtMs: number): number {
    this.lastCreateMs = Math.max(createdAtMs, this.lastCreateMs + 1);
    return this.lastCreateMs;
  }
}

/** A response failed by `error` (its message, type and code as the inference error format renders them). */
function failedOutcome(error: GatewayError): ResponseOutcome {
  return { status: 'failed', output: [], usage: zeroUsage, incompleteReason: null, error: responseErrorOf(error) };
}

const cancelledReason = 'RESPONSE_CANCELLED';

function cancelledError(): GatewayError {
  return new GatewayError(Code.CANCELLED, 'the background response was cancelled', { reason: cancelledReason });
}
