/**
 * Test fixtures of the Responses API's unit tests: a chat client answering with the reference engine's
 * generator in process (no HTTP), a serving directory for one model, and a caller's context.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { isGatewayError, notFound } from '../errors/index.js';
import { generateCompletion, type EngineChatMessage, type GeneratorTool, type GeneratorToolChoice } from '../engine/generate.js';
import type { ModelTarget, ServingDirectory } from '../ports/serving-directory.js';
import type { ChatCompletionCall, ChatCompletionOutcome, ChatModelClient } from './model-client.js';

const isObject = (value: JsonValue | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A client that answers like the reference engine; records every body; `fail` answers the next calls with a status. */
export class EngineClient implements ChatModelClient {
  readonly bodies: JsonObject[] = [];
  /** Outcomes to answer instead of generating, first in first out. */
  readonly scripted: Array<ChatCompletionOutcome | Error> = [];

  constructor(private readonly contextLength = 8192) {}

  async complete(_ctx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    this.bodies.push(call.body);
    const next = this.scripted.shift();
    if (next instanceof Error) throw next;
    if (next) return next;
    const body = call.body;
    const tools: GeneratorTool[] = (Array.isArray(body.tools) ? body.tools : []).filter(isObject).map((tool) => {
      const fn = isObject(tool.function) ? tool.function : {};
      return { name: String(fn.name), ...(isObject(fn.parameters) ? { parameters: fn.parameters } : {}), ...(typeof fn.description === 'string' ? { description: fn.description } : {}) };
    });
    const rawChoice = body.tool_choice;
    const toolChoice: GeneratorToolChoice | undefined =
      rawChoice === 'none' || rawChoice === 'auto' || rawChoice === 'required' ? rawChoice
        : isObject(rawChoice) && isObject(rawChoice.function) ? { name: String(rawChoice.function.name) } : undefined;
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

/** A directory that knows one model (and any other name is NOT_FOUND). */
export const fixtureDirectory: ServingDirectory = {
  async resolve(_ctx, model): Promise<ModelTarget> {
    if (model.split('#')[0] !== fixtureModel) throw notFound(model);
    return { accountId: fixtureAccount, model: fixtureModel, deployment: fixtureDeployment };
  },
  async acquire() {
    throw new Error('the fixture directory leases no replicas');
  },
};

/** A caller in `accountId` with `role`. */
export function callerContext(accountId = fixtureAccount, role: 'admin' | 'inference-user' | 'user' = 'inference-user'): RequestContext {
  return { requestId: 'test', principal: { userName: `accounts/${accountId}/users/u`, accountId, role } };
}
