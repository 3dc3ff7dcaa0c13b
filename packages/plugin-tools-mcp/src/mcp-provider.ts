/**
 * The Responses API's tool provider for MCP servers (`tools` of type `mcp` and `sse`): checks the
 * declarations, and for each response connects to its servers side by side, lists their tools and
 * opens a {@link McpToolSession}. A server that cannot be listed refuses the request (no model turn runs).
 */
import {
  invalidArgument, type JsonObject, type RequestContext, type ResponseTool, type ResponseToolProvider, type ToolSession,
} from '@berth/core';
import type { McpConnector, McpServerConnection } from './mcp-connection.js';
import { parseMcpDeclaration, type McpServerDeclaration } from './mcp-declaration.js';
import { McpToolSession } from './mcp-session.js';

export class McpToolProvider implements ResponseToolProvider {
  readonly types = ['mcp', 'sse'] as const;
  /** What `normalize` read from each echoed declaration (`open` receives the echoes). */
  private readonly parsed = new WeakMap<ResponseTool, McpServerDeclaration>();

  constructor(private readonly connector: McpConnector) {}

  normalize(tool: JsonObject, param: string): ResponseTool {
    const { echo, declaration } = parseMcpDeclaration(tool, param);
    this.parsed.set(echo, declaration);
    return echo;
  }

  async open(ctx: RequestContext, tools: readonly ResponseTool[]): Promise<ToolSession> {
    const declarations = tools.map((tool, i) => this.parsed.get(tool) ?? parseMcpDeclaration(tool, `tools[${i}]`).declaration);
    checkDistinctLabels(declarations);
    const settled = await Promise.allSettled(declarations.map((declaration) => this.connector.connect(ctx, declaration)));
    const connections = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) {
      await Promise.all(connections.map((connection: McpServerConnection) => connection.close()));
      throw failure.reason;
    }
    return new McpToolSession(connections);
  }
}

/** Two servers of one request under one label could not be told apart (in tool names and items). */
function checkDistinctLabels(declarations: readonly McpServerDeclaration[]): void {
  const seen = new Set<string>();
  for (const declaration of declarations) {
    if (seen.has(declaration.label)) {
      const field = `${declaration.param}.server_label`;
      throw invalidArgument(`${field}: another MCP server of this request has the label ${declaration.label}; give each server its own server_label`, { field, reason: 'INVALID_VALUE' });
    }
    seen.add(declaration.label);
  }
}
