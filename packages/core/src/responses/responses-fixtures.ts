/**
 * Test fixtures of the Responses API's unit tests: a chat client answering with the reference engine's
 * generator in process (no HTTP), a serving directory for one model, and a caller's context.
 */
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError, isGatewayError, notFound } from '../errors/index.js';
import { generateCompletion, type EngineChatMessage, type GeneratorTool, type GeneratorToolChoice } from '../engine/generate.js';
import type { ModelTarget, ServingDirectory } from '../ports/serving-directory.js';
import type { ResourceStore } from '../ports/storage.js';
import { systemContext } from '../contracts/request-context.js';
import { systemClock } from '../ports/clock.js';
import { MemoryStorage } from '../storage-memory/index.js';
import { ResponsesService } from './responses-service.js';
import { tokenize } from '../engine/tokenizer.js';
import { isPlainObject } from '../validation/paths.js';
import type { ChatCompletionCall, ChatCompletionOutcome, ChatModelClient, ChatStreamOutcome } from './model-client.js';

/** What a {@link ChatModelClient} throws once the caller's signal aborted. */
const callerGone = () => new GatewayError(Code.CANCELLED, 'the client closed the connection', { reason: 'CLIENT_CLOSED' });

/** A client that answers like the reference engine; records every body; `fail` answers the next calls with a status. */
export class EngineClient implements ChatModelClient {
  readonly bodies: JsonObject[] = [];
  /** Outcomes to answer instead of generating, first in first out. */
  readonly scripted: Array<ChatCompletionOutcome | Error> = [];
  /** When set, the next stream breaks (throws this error) after this many chunks. */
  breakStream: { afterChunks: number; error: Error } | undefined;

  constructor(private readonly contextLength = 8192) {}

  /** The completion as the reference engine streams it: role, tool calls, one chunk per token, finish, usage. */
  async stream(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatStreamOutcome> {
    const outcome = await this.complete(ctx, call);
    if (!outcome.ok) return outcome;
    const choice = (outcome.completion.choices as JsonObject[])[0]!;
    const message = choice.message as JsonObject;
    const chunks: JsonObject[] = [{ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
    if (typeof message.reasoning_content === 'string') {
      for (const piece of tokenize(message.reasoning_content)) chunks.push({ choices: [{ index: 0, delta: { reasoning_content: piece }, finish_reason: null }] });
    }
    (Array.isArray(message.tool_calls) ? message.tool_calls : []).forEach((toolCall, index) => {
      const { id, function: fn } = toolCall as { id: string; function: { name: string; arguments: string } };
      chunks.push({ choices: [{ index: 0, delta: { tool_calls: [{ index, id, type: 'function', function: { name: fn.name, arguments: '' } }] }, finish_reason: null }] });
      chunks.push({ choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: fn.arguments } }] }, finish_reason: null }] });
    });
    for (const piece of tokenize(typeof message.content === 'string' ? message.content : '')) chunks.push({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
    chunks.push({ choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }] });
    chunks.push({ choices: [], usage: outcome.completion.usage ?? null });
    const broken = this.breakStream;
    this.breakStream = undefined;
    async function* iterate(): AsyncIterable<JsonObject> {
      for (const [i, chunk] of chunks.entries()) {
        if (ctx.signal?.aborted) throw callerGone();
        if (broken && i >= broken.afterChunks) throw broken.error;
        yield chunk;
      }
    }
    return { ok: true, chunks: iterate() };
  }

  async complete(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    if (ctx.signal?.aborted) throw callerGone();
    this.bodies.push(call.body);
    const next = this.scripted.shift();
    if (next instanceof Error) throw next;
    if (next) return next;
    const body = call.body;
    const tools: GeneratorTool[] = (Array.isArray(body.tools) ? body.tools : []).filter(isPlainObject).map((tool) => {
      const fn = isPlainObject(tool.function) ? tool.function : {};
      return { name: String(fn.name), ...(isPlainObject(fn.parameters) ? { parameters: fn.parameters } : {}), ...(typeof fn.description === 'string' ? { description: fn.description } : {}) };
    });
    const rawChoice = body.tool_choice;
    const toolChoice: GeneratorToolChoice | undefined =
      rawChoice === 'none' || rawChoice === 'auto' || rawChoice === 'required' ? rawChoice
        : isPlainObject(rawChoice) && isPlainObject(rawChoice.function) ? { name: String(rawChoice.function.name) } : undefined;
    try {
      const result = generateCompletion({
        model: 'reference-model',
        messages: body.messages as unknown as EngineChatMessage[],
        contextLength: this.contextLength,
        ...(typeof body.max_tokens === 'number' ? { maxTokens: body.max_tokens } : {}),
        ...(tools.length > 0 ? { tools } : {}),
        ...(toolChoice ? { toolChoice } : {}),
        parallelToolCalls: body.parallel_tool_calls !== false,
      });
      const message: JsonObject = { role: 'assistant', content: result.toolCalls.length > 0 ? null : result.text };
      if (result.toolCalls.length > 0) {
        message.tool_calls = result.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      }
      return { ok: true, completion: { object: 'chat.completion', choices: [{ index: 0, message, finish_reason: result.finishReason }], usage: { ...result.usage } } };
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      return { ok: false, status: 400, error: { message: error.message, type: 'invalid_request_error', param: error.field ?? null, code: error.reason?.toLowerCase() ?? null } };
    }
  }
}

export const fixtureAccount = 'acme';
export const fixtureModel = `accounts/${fixtureAccount}/models/m`;
export const fixtureDeployment = `accounts/${fixtureAccount}/deployments/d`;

/**
 * A directory that knows one model (and any other name is NOT_FOUND); its facts come from the model's
 * stored record, as a runtime's replicas would run it (`contextLength`, else 8192; `supportsImageInput`).
 */
export function fixtureDirectory(resources: ResourceStore): ServingDirectory {
  return {
    async resolve(ctx, model, options): Promise<ModelTarget> {
      if (model.split('#')[0] !== fixtureModel) throw notFound(model);
      const target = { accountId: fixtureAccount, model: fixtureModel, deployment: fixtureDeployment };
      if (options?.facts !== true) return target;
      const data = (await resources.get(ctx, fixtureModel))?.data ?? {};
      return { ...target, facts: { contextLength: typeof data.contextLength === 'number' ? data.contextLength : 8192, supportsImageInput: data.supportsImageInput === true } };
    },
    async acquire() {
      throw new Error('the fixture directory leases no replicas');
    },
  };
}

/** A caller in `accountId` with `role`. */
export function callerContext(accountId = fixtureAccount, role: 'admin' | 'inference-user' | 'user' = 'inference-user'): RequestContext {
  return { requestId: 'test', principal: { userName: `accounts/${accountId}/users/u`, accountId, role } };
}

/** A service over fresh memory storage and an {@link EngineClient}, with the fixture model (8192-token context) stored. */
export async function responsesTestBed(): Promise<{ storage: MemoryStorage; client: EngineClient; service: ResponsesService }> {
  const storage = new MemoryStorage();
  const client = new EngineClient();
  const service = new ResponsesService({ resources: storage.resources, directory: fixtureDirectory(storage.resources), client, clock: systemClock });
  await storage.resources.create(systemContext(), fixtureModel, { name: fixtureModel, contextLength: 8192 });
  return { storage, client, service };
}
