/**
 * The MCP tools of one response: each server's allowed tools are offered to the model as functions
 * named `<server_label>__<tool>` (core's `mcpFunctionName`), each server's tool list opens the output
 * (`mcp_list_tools`), and a call the model makes to one of them is run on its server and recorded as
 * an `mcp_call` item holding the output or the error, which the model reads on its next turn. A call
 * to a tool that needs approval (`require_approval`) is not run: it becomes an `mcp_approval_request`
 * item (the response then ends), and runs once the client approved it in a following response.
 */
import {
  isPlainObject, mcpFunctionName, newResponsesId,
  type ChatFunction, type ConversationItem, type FunctionCallItem, type JsonObject, type JsonValue, type McpApprovalRequestItem, type McpCallItem,
  type McpListToolsItem, type McpToolInfo, type RequestContext, type ToolEventStream, type ToolSession,
} from '@berth/core';
import type { McpServerConnection } from './mcp-connection.js';
import type { ToolOutcome } from './mcp-result.js';
import { needsApproval } from './mcp-declaration.js';

interface OfferedTool {
  readonly connection: McpServerConnection;
  readonly tool: McpToolInfo;
}

/** The model's arguments as the JSON object a tool takes ('' is no arguments); undefined when they are not one. */
export function parseArguments(text: string): JsonObject | undefined {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as JsonValue;
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export class McpToolSession implements ToolSession {
  readonly functions: ChatFunction[] = [];
  readonly items: McpListToolsItem[];
  private readonly offered = new Map<string, OfferedTool>();

  constructor(private readonly connections: readonly McpServerConnection[]) {
    this.items = connections.map((connection) => ({
      type: 'mcp_list_tools', id: newResponsesId('mcpl'), server_label: connection.declaration.label, tools: [...connection.tools], error: null,
    }));
    for (const connection of connections) {
      for (const tool of connection.tools) {
        const name = mcpFunctionName(connection.declaration.label, tool.name);
        if (this.offered.has(name)) continue;
        this.offered.set(name, { connection, tool });
        this.functions.push({ name, ...(tool.description !== null ? { description: tool.description } : {}), parameters: tool.input_schema });
      }
    }
  }

  handles(name: string): boolean {
    return this.offered.has(name);
  }

  /** Each tool list as the reference API streams it: added (empty), in progress, completed, done. */
  streamItems(events: ToolEventStream): void {
    for (const item of this.items) {
      const index = events.itemAdded({ ...item, tools: [] });
      events.itemEvent('response.mcp_list_tools.in_progress', item, index);
      events.itemEvent('response.mcp_list_tools.completed', item, index);
      events.itemDone(index, item);
    }
  }

  async execute(ctx: RequestContext, call: FunctionCallItem, events?: ToolEventStream): Promise<ConversationItem[]> {
    const offered = this.offered.get(call.name);
    if (!offered) throw new Error(`the MCP session was asked to run ${call.name}, which it does not offer`);
    if (needsApproval(offered.connection.declaration.approval, offered.tool)) {
      const request: McpApprovalRequestItem = {
        type: 'mcp_approval_request', id: newResponsesId('mcpr'), server_label: offered.connection.declaration.label, name: offered.tool.name, arguments: call.arguments,
      };
      if (events) events.itemDone(events.itemAdded(request), request);
      return [request];
    }
    return [await this.call(ctx, offered, call.arguments, null, events)];
  }

  async runApproved(ctx: RequestContext, request: McpApprovalRequestItem, events?: ToolEventStream): Promise<ConversationItem[] | undefined> {
    const offered = this.offered.get(mcpFunctionName(request.server_label, request.name));
    if (!offered || offered.connection.declaration.label !== request.server_label || offered.tool.name !== request.name) return undefined;
    return [await this.call(ctx, offered, request.arguments, request.id, events)];
  }

  /** Runs one call on its server: the `mcp_call` item with its output or error, streamed to `events`. */
  private async call(
    ctx: RequestContext, offered: OfferedTool, argumentsText: string, approvalRequestId: string | null, events: ToolEventStream | undefined,
  ): Promise<McpCallItem> {
    const item: McpCallItem = {
      type: 'mcp_call',
      id: newResponsesId('mcp'),
      server_label: offered.connection.declaration.label,
      name: offered.tool.name,
      arguments: argumentsText,
      output: null,
      error: null,
      approval_request_id: approvalRequestId,
      status: 'in_progress',
    };
    let index = -1;
    if (events) {
      index = events.itemAdded({ ...item, arguments: '' });
      if (item.arguments.length > 0) events.itemEvent('response.mcp_call_arguments.delta', item, index, { delta: item.arguments });
      events.itemEvent('response.mcp_call_arguments.done', item, index, { arguments: item.arguments });
      events.itemEvent('response.mcp_call.in_progress', item, index);
    }
    const args = parseArguments(item.arguments);
    const outcome: ToolOutcome = args === undefined
      ? { error: `the arguments are not a JSON object: ${item.arguments.slice(0, 200)}` }
      : await offered.connection.call(ctx, offered.tool.name, args);
    if ('error' in outcome) {
      item.error = outcome.error;
      item.status = 'failed';
    } else {
      item.output = outcome.output;
      item.status = 'completed';
    }
    if (events) {
      events.itemEvent(item.status === 'failed' ? 'response.mcp_call.failed' : 'response.mcp_call.completed', item, index);
      events.itemDone(index, item);
    }
    return item;
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }
}
