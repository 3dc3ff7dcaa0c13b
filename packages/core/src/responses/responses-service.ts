/**
 * The Responses API's operations: create (one or more model turns through the same routing as chat
 * completions), retrieve, delete, list, and a response's input items. Every operation acts in the
 * caller's account: another account's response id is not found.
 */
import type { RequestContext } from '../contracts/request-context.js';
import { authorize } from '../auth/permissions.js';
import { Code, isGatewayError, renderInferenceError, unauthenticated } from '../errors/index.js';
import { clockMs, type Clock } from '../ports/clock.js';
import type { ModelTarget, ServingDirectory } from '../ports/serving-directory.js';
import type { ResourceStore } from '../ports/storage.js';
import type { ChatModelClient } from './model-client.js';
import { invalid } from './request-values.js';
import { newResponsesId } from './response-ids.js';
import { checkToolOutputs, hasImageInput } from './response-input.js';
import { responseListBody, pageInputItems, parseResponseListParams, type ResponseListParams } from './response-list.js';
import { buildResponseObject, type ResponseOutcome } from './response-object.js';
import { ResponseEventWriter, type ResponseEventSink } from './response-events.js';
import { parseResponseRequest, type ResponseRequest } from './response-request.js';
import { ResponseStore, responseNotFound } from './response-store.js';
import type { ConversationItem, ResponseList, ResponseObject } from './response-types.js';
import type { ResponseToolProvider, ToolSession } from './tool-provider.js';
import { TurnLoop, zeroUsage } from './turn-loop.js';
import { fitContext, promptLimit, type FittedContext } from './context-window.js';
import { offeredFunctions } from './chat-translation.js';

export interface ResponsesServiceDependencies {
  /** Where responses are stored (the storage's resource store). */
  readonly resources: ResourceStore;
  /** Routes a request's model and tells its context length and image support ({@link ModelTarget.facts}). */
  readonly directory: ServingDirectory;
  readonly client: ChatModelClient;
  readonly clock: Clock;
  /** The gateway-run tool provider (MCP), at most one. None: only function tools. */
  readonly toolProviders?: readonly ResponseToolProvider[];
}

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

export class ResponsesService {
  private readonly store: ResponseStore;
  private readonly loop: TurnLoop;
  private readonly providers: readonly ResponseToolProvider[];
  /** Last record time handed out: responses created by one instance list in creation order. */
  private lastCreateMs = 0;

  /** Throws when more than one tool provider is given: requests could not tell which runs a tool. */
  constructor(private readonly deps: ResponsesServiceDependencies) {
    this.store = new ResponseStore(deps.resources);
    this.loop = new TurnLoop(deps.client);
    this.providers = deps.toolProviders ?? [];
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
    if (request.background) throw invalid('background: true is not yet supported by this gateway; send background: false', 'background', 'UNSUPPORTED_VALUE');
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
        const { type, code, message } = renderInferenceError(error).body.error;
        return { status: 'failed', output: [], usage: zeroUsage, incompleteReason: null, error: { type, code: code ?? 'server_error', message } } satisfies ResponseOutcome;
      });
    } finally {
      await session?.close();
    }
    const response = buildResponseObject(request, id, createdAtMs, clockMs(this.deps.clock), outcome);
    if (id !== null) await this.store.save(ctx, prepared.accountId, response, prepared.context, this.nextCreateMs(createdAtMs));
    events?.finished(response);
    return response;
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

  private accountOf(ctx: RequestContext): string {
    const principal = ctx.principal;
    if (!principal) throw unauthenticated('the Responses API needs an authenticated caller');
    authorize(ctx, 'inference.use', { accountId: principal.accountId });
    return principal.accountId;
  }

  /** The conversation a previous response ended with: its input items and its output. */
  private async history(ctx: RequestContext, accountId: string, request: ResponseRequest): Promise<ConversationItem[]> {
    if (request.previousResponseId === null) {
      checkToolOutputs([], request.input);
      return [];
    }
    const previous = await this.store.load(ctx, accountId, request.previousResponseId);
    if (!previous) throw responseNotFound(request.previousResponseId, 'previous_response_id');
    const history = [...previous.conversation, ...previous.response.output];
    checkToolOutputs(history, request.input);
    return history;
  }

  /** The provider's session over the request's tools of its types (none without such tools). */
  private async openSession(ctx: RequestContext, request: ResponseRequest): Promise<ToolSession | undefined> {
    const provider = this.providers[0];
    const tools = provider ? request.tools.filter((tool) => provider.types.includes(tool.type)) : [];
    return provider && tools.length > 0 ? provider.open(ctx, tools) : undefined;
  }

  /** Record times strictly increase within this instance, so same-millisecond responses keep their order. */
  private nextCreateMs(createdAtMs: number): number {
    this.lastCreateMs = Math.max(createdAtMs, this.lastCreateMs + 1);
    return this.lastCreateMs;
  }
}
