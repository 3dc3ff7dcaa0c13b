/**
 * MCP tools of a reinforcement fine-tuning job (`mcpServer`): the server's tools, listed once per attempt
 * of the job's work through the gateway's MCP tool provider (the one the Responses API uses, so the same
 * guarded egress client and limits), offered to every rollout as chat-completion `tools`; the rollouts run
 * the model's tool calls on the server and send the results back (see `rft-rollouts.ts`).
 */
import type { RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError, failedPrecondition, invalidArgument, isGatewayError } from '../errors/index.js';
import type { FunctionCallItem } from '../responses/response-types.js';
import type { ChatFunction, ResponseToolProvider, ToolSession } from '../responses/tool-provider.js';

/** What one tool call gave: its output, or the error the model reads (`error: …`). */
export type RolloutToolOutcome = { readonly output: string } | { readonly error: string };

/** The tools a job's rollouts may call. */
export interface RolloutTools {
  /** Offered to the model as `tools: [{type: "function", function}]`. */
  readonly functions: readonly ChatFunction[];
  /**
   * Runs one call. A tool that fails, a server that fails, arguments that are not a JSON object and a name
   * not offered are outcomes (the model reads the error); throws only when `ctx.signal` aborts.
   */
  call(ctx: RequestContext, name: string, argumentsText: string): Promise<RolloutToolOutcome>;
  close(): Promise<void>;
}

/** The label the job's server is declared under (tools are offered under their own names, without it). */
export const mcpServerLabel = 'rft';
const validFunctionName = /^[A-Za-z0-9_-]{1,64}$/;

/** The installed provider that runs MCP servers over streamable HTTP (`type: "mcp"`), if any. */
export function mcpProvider(providers: readonly ResponseToolProvider[]): ResponseToolProvider | undefined {
  return providers.find((provider) => provider.types.includes('mcp'));
}

/**
 * Connects to `url` and lists its tools (every tool of the server; no approval: the job runs unattended).
 * Throws FAILED_PRECONDITION when the server cannot be reached or listed, INVALID_ARGUMENT when the gateway
 * refuses its address (both naming `mcpServer`), CANCELLED when `ctx.signal` aborts.
 */
export async function openMcpTools(ctx: RequestContext, provider: ResponseToolProvider, url: string): Promise<RolloutTools> {
  let session: ToolSession;
  try {
    const declaration = provider.normalize({ type: 'mcp', server_url: url, server_label: mcpServerLabel, require_approval: 'never' }, 'mcpServer');
    session = await provider.open(ctx, [declaration]);
  } catch (error) {
    if (isGatewayError(error) && error.code === Code.CANCELLED) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (isGatewayError(error) && error.code === Code.INVALID_ARGUMENT) throw invalidArgument(`mcpServer ${url}: ${message}`, { field: 'mcpServer', cause: error });
    throw failedPrecondition(`mcpServer ${url}: ${message}`, { field: 'mcpServer', reason: 'MCP_LIST_TOOLS_FAILED', cause: error });
  }
  return new McpRolloutTools(session);
}

let callCounter = 0;

class McpRolloutTools implements RolloutTools {
  readonly functions: ChatFunction[] = [];
  /** Offered name → the session's name (`rft__<tool>`). */
  private readonly names = new Map<string, string>();

  constructor(private readonly session: ToolSession) {
    const prefix = `${mcpServerLabel}__`;
    for (const fn of session.functions) {
      const own = fn.name.startsWith(prefix) ? fn.name.slice(prefix.length) : fn.name;
      const offered = validFunctionName.test(own) && !this.names.has(own) ? own : fn.name;
      this.names.set(offered, fn.name);
      this.functions.push({ ...fn, name: offered });
    }
  }

  async call(ctx: RequestContext, name: string, argumentsText: string): Promise<RolloutToolOutcome> {
    const sessionName = this.names.get(name);
    if (sessionName === undefined) return { error: `there is no tool named ${name}; the tools are ${[...this.names.keys()].join(', ') || 'none'}` };
    callCounter += 1;
    const id = `rft_call_${callCounter}`;
    const call: FunctionCallItem = { type: 'function_call', id, call_id: id, name: sessionName, arguments: argumentsText, status: 'completed' };
    let items;
    try {
      items = await this.session.execute(ctx, call);
    } catch (error) {
      if (ctx.signal?.aborted) throw new GatewayError(Code.CANCELLED, 'the rollout was cancelled', { reason: 'CANCELLED', cause: error });
      return { error: error instanceof Error ? error.message : String(error) };
    }
    const result = items.find((item) => item.type === 'mcp_call');
    if (!result || result.type !== 'mcp_call') return { error: `the MCP server did not run ${name}` };
    return result.error !== null ? { error: result.error } : { output: result.output ?? '' };
  }

  close(): Promise<void> {
    return this.session.close();
  }
}
