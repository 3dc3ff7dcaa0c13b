import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { Code, failedPrecondition, GatewayError, isGatewayError } from '../errors/index.js';
import type { EvaluationRequest, EvaluatorRunner } from '../ports/evaluator-runner.js';
import type { ChatCompletionCall, ChatCompletionOutcome, ChatModelClient } from '../responses/model-client.js';
import type { ConversationItem, FunctionCallItem, ResponseTool } from '../responses/response-types.js';
import type { ResponseToolProvider, ToolSession } from '../responses/tool-provider.js';
import { runRollouts, rolloutDefaults, type RolloutRun } from './rft-rollouts.js';
import { openMcpTools, type RolloutTools } from './rft-tools.js';

const ctx: RequestContext = { requestId: 't' };
const target = { accountId: 'a', model: 'accounts/a/models/m', deployment: 'accounts/a/deployments/d' };

/**
 * A model that calls `lookup` whenever it may (tools offered, tool_choice not "none"), and otherwise
 * answers with the tool results it read, joined.
 */
class ToolHungryClient implements ChatModelClient {
  readonly bodies: JsonObject[] = [];
  async complete(_ctx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    this.bodies.push(call.body);
    const messages = call.body.messages as JsonObject[];
    const usage = { prompt_tokens: 10, completion_tokens: 3 };
    if (call.body.tools !== undefined && call.body.tool_choice !== 'none') {
      const round = messages.filter((m) => m.role === 'tool').length;
      const call = { id: `call_${round}`, type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ city: 'Oslo', round }) } };
      return {
        ok: true,
        completion: { choices: [{ message: { role: 'assistant', content: null, tool_calls: [call] } }], usage },
      };
    }
    const read = messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    return { ok: true, completion: { choices: [{ message: { role: 'assistant', content: read.length > 0 ? read.join(' | ') : 'plain' } }], usage } };
  }

  async stream(): Promise<never> {
    throw new Error('not used');
  }
}

/** Scores 1 when the answer holds "sunny"; remembers what it was asked. */
function recordingEvaluators(): EvaluatorRunner & { requests: EvaluationRequest[] } {
  const requests: EvaluationRequest[] = [];
  return {
    requests,
    build: async () => ({ ok: true }),
    score: async () => {
      throw new Error('not used');
    },
    scoreMany: async (_ctx, _evaluator, batch) => {
      requests.push(...batch);
      return batch.map((r) => ({ status: 'scored', score: r.answer.text.includes('sunny') ? 1 : 0, details: { criteria: [], durationMs: 0 } }));
    },
    close: async () => undefined,
  };
}

function run(client: ChatModelClient, evaluators: EvaluatorRunner, tools?: RolloutTools, maxToolRounds?: number): RolloutRun {
  return {
    client, target, evaluators, evaluator: {}, sampling: { candidates: 2, maxOutputTokens: 16, temperature: 1 },
    maxConcurrentRollouts: 4, maxConcurrentEvaluations: 4, seedBase: 'job', retries: 0,
    ...(tools ? { tools } : {}), ...(maxToolRounds !== undefined ? { maxToolRounds } : {}),
  };
}

const row = { index: 0, row: { messages: [{ role: 'user', content: 'weather?' }] } };

describe('rollouts with tools', () => {
  it('runs the tool-call loop for at most maxToolRounds rounds, then asks for text (tool_choice none); failures reach the model as tool errors', async () => {
    const tools: RolloutTools = {
      functions: [{ name: 'lookup', parameters: { type: 'object' } }],
      // The first round's call succeeds, the second's fails.
      async call(_ctx, name, args) {
        return (JSON.parse(args) as { round: number }).round === 0 ? { output: `${name}: sunny` } : { error: 'the harbor gate is closed' };
      },
      close: async () => undefined,
    };
    const client = new ToolHungryClient();
    const evaluators = recordingEvaluators();
    const { groups, counts } = await runRollouts(ctx, run(client, evaluators, tools, 2), [row]);
    // Two rollouts: each 2 rounds of one tool call, then the forced text answer = 3 requests.
    expect(client.bodies).toHaveLength(6);
    expect(client.bodies.filter((b) => b.tool_choice === 'none')).toHaveLength(2);
    expect(client.bodies[0]!.tools).toEqual([{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }]);
    expect(counts).toMatchObject({ rollouts: 2, scored: 2, failed: 0, toolCalls: 4, failedToolCalls: 2, inputTokens: 60, outputTokens: 18 });
    const rollout = groups[0]!.rollouts[0]!;
    expect(rollout.completion).toMatch(/sunny \| error: the harbor gate is closed$/);
    expect(rollout.messages).toHaveLength(5);
    expect(rollout.messages?.[1]).toMatchObject({ role: 'tool', tool_call_id: expect.any(String), content: 'lookup: sunny' });
    expect(rollout.messages?.[4]).toEqual({ role: 'assistant', content: rollout.completion });
    // The evaluator scored the final text and saw the whole turn.
    expect(evaluators.requests[0]!.answer.messages).toEqual(rollout.messages);
    expect(groups[0]!.rollouts.map((r) => r.reward)).toEqual([1, 1]);
  });

  it('without tools, a rollout is one request and its answer, with no turn', async () => {
    const client = new ToolHungryClient();
    const { groups, counts } = await runRollouts(ctx, run(client, recordingEvaluators()), [row]);
    expect(client.bodies).toHaveLength(2);
    expect(client.bodies[0]).not.toHaveProperty('tools');
    expect(groups[0]!.rollouts[0]).toEqual({ completion: 'plain', completionTokens: 3, reward: 0 });
    expect(counts.toolCalls).toBe(0);
    expect(rolloutDefaults.maxToolRounds).toBeGreaterThan(0);
  });
});

/** A session offering `lookup` as `rft__lookup` (as the MCP provider names it), whose `fail` call reports an error. */
class FakeSession implements ToolSession {
  readonly functions = [{ name: 'rft__lookup', description: 'Weather', parameters: { type: 'object' } }, { name: 'rft__fail', parameters: { type: 'object' } }];
  readonly items: ConversationItem[] = [];
  readonly executed: FunctionCallItem[] = [];
  closed = false;
  handles(name: string): boolean {
    return this.functions.some((f) => f.name === name);
  }

  async execute(callCtx: RequestContext, call: FunctionCallItem): Promise<ConversationItem[]> {
    if (callCtx.signal?.aborted) throw new GatewayError(Code.CANCELLED, 'cancelled');
    this.executed.push(call);
    const failed = call.name === 'rft__fail';
    return [{
      type: 'mcp_call', id: 'mcp_1', server_label: 'rft', name: call.name.slice(5), arguments: call.arguments,
      output: failed ? null : 'sunny', error: failed ? 'the harbor gate is closed' : null, approval_request_id: null, status: failed ? 'failed' : 'completed',
    }];
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('openMcpTools', () => {
  it('declares the server without approvals, offers its tools under their own names and maps outcomes', async () => {
    const session = new FakeSession();
    const declared: ResponseTool[] = [];
    const provider: ResponseToolProvider = {
      types: ['mcp', 'sse'],
      normalize: (tool) => tool as ResponseTool,
      open: async (_ctx, tools) => {
        declared.push(...tools);
        return session;
      },
    };
    const tools = await openMcpTools(ctx, provider, 'http://tools.example/mcp');
    expect(declared).toEqual([{ type: 'mcp', server_url: 'http://tools.example/mcp', server_label: 'rft', require_approval: 'never' }]);
    expect(tools.functions.map((f) => f.name)).toEqual(['lookup', 'fail']);
    expect(tools.functions[0]).toMatchObject({ description: 'Weather', parameters: { type: 'object' } });
    expect(await tools.call(ctx, 'lookup', '{"city":"Oslo"}')).toEqual({ output: 'sunny' });
    expect(session.executed[0]).toMatchObject({ name: 'rft__lookup', arguments: '{"city":"Oslo"}' });
    expect(await tools.call(ctx, 'fail', '')).toEqual({ error: 'the harbor gate is closed' });
    expect(await tools.call(ctx, 'nope', '')).toEqual({ error: 'there is no tool named nope; the tools are lookup, fail' });
    expect(session.executed).toHaveLength(2);
    const aborted = new AbortController();
    aborted.abort();
    await expect(tools.call({ ...ctx, signal: aborted.signal }, 'lookup', '{}')).rejects.toMatchObject({ code: Code.CANCELLED });
    await tools.close();
    expect(session.closed).toBe(true);
  });

  it('a server that cannot be listed is FAILED_PRECONDITION naming mcpServer', async () => {
    const provider: ResponseToolProvider = {
      types: ['mcp'],
      normalize: (tool) => tool as ResponseTool,
      open: async () => {
        throw failedPrecondition('could not list the tools of MCP server rft (http://tools.example): connection refused', { reason: 'MCP_LIST_TOOLS_FAILED' });
      },
    };
    const error: unknown = await openMcpTools(ctx, provider, 'http://tools.example/mcp').catch((e: unknown) => e);
    expect(isGatewayError(error) && error.code).toBe(Code.FAILED_PRECONDITION);
    expect((error as GatewayError).message).toBe('mcpServer http://tools.example/mcp: could not list the tools of MCP server rft (http://tools.example): connection refused');
    expect((error as GatewayError).field).toBe('mcpServer');
  });
});
