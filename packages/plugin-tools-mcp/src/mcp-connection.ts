/**
 * One MCP server of a response, reached with @modelcontextprotocol/sdk's client: the streamable HTTP
 * transport for `mcp` declarations, the HTTP+SSE transport for `sse`. Every request goes through the
 * gateway's guarded egress client (`EgressHttp.createFetch`), so the server's address is checked like
 * any user-supplied URL (no loopback or private address unless the gateway allows them), and the
 * request's signal ends every exchange.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  Code, GatewayError, SpanKind, failedPrecondition, inSpan, invalidArgument, isGatewayError, isPlainObject,
  type EgressFetch, type EgressHttp, type JsonObject, type McpToolInfo, type RequestContext,
} from '@berth/core';
import type { AllowedTools, McpServerDeclaration } from './mcp-declaration.js';
import { resultOutcome, type ToolOutcome } from './mcp-result.js';

/** A server whose tools were listed: what the session offers and calls. */
export interface McpServerConnection {
  readonly declaration: McpServerDeclaration;
  /** The server's tools that `allowed_tools` lets through, in the server's order. */
  readonly tools: readonly McpToolInfo[];
  /** Calls one tool. A failure of the tool or the server is an outcome; throws CANCELLED when `ctx.signal` aborts. */
  call(ctx: RequestContext, name: string, args: JsonObject): Promise<ToolOutcome>;
  close(): Promise<void>;
}

/** Opens connections: the SDK's in the plugin, fakes in tests. */
export interface McpConnector {
  /**
   * Connects and lists the tools. Throws INVALID_ARGUMENT when the gateway refuses the address,
   * FAILED_PRECONDITION (reason MCP_LIST_TOOLS_FAILED) when the server cannot be reached or listed,
   * CANCELLED when `ctx.signal` aborts; each naming `tools[i].server_url`.
   */
  connect(ctx: RequestContext, declaration: McpServerDeclaration): Promise<McpServerConnection>;
}

export interface McpConnectorLimits {
  /** Connecting and listing the tools, ms. */
  readonly listTimeoutMs: number;
  /** One tool call, ms. */
  readonly callTimeoutMs: number;
  /** Largest answer body read from the server, bytes. */
  readonly maxResponseBytes: number;
  /** Pages of `tools/list` read (a server that pages forever is cut there). */
  readonly maxListPages: number;
}

const clientInfo = { name: 'berth-gateway', version: '0.1.0' };

/**
 * The SDK's client and transports, loaded on the first connection: the SDK and its schema library are a
 * large part of a gateway's start-up time and memory, and most gateways never see an MCP tool.
 */
let sdkLoading: Promise<McpSdk> | undefined;
interface McpSdk {
  readonly Client: typeof Client;
  readonly SSEClientTransport: typeof SSEClientTransport;
  readonly StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
}
function loadSdk(): Promise<McpSdk> {
  sdkLoading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]).then(([client, sse, streamable]) => ({
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
  }));
  return sdkLoading;
}

export function cancelledError(): GatewayError {
  return new GatewayError(Code.CANCELLED, 'the request was cancelled', { reason: 'CANCELLED' });
}

/** Whether `annotations` says the tool only reads (MCP's `readOnlyHint`). */
function isReadOnly(tool: McpToolInfo): boolean {
  return tool.annotations?.readOnlyHint === true;
}

export function filterAllowed(tools: readonly McpToolInfo[], allowed: AllowedTools): McpToolInfo[] {
  return tools.filter((tool) => (allowed.names === null || allowed.names.has(tool.name)) && (!allowed.readOnly || isReadOnly(tool)));
}

/** A tool of `tools/list` as the `mcp_list_tools` item shows it. */
export function toolInfo(tool: Tool): McpToolInfo {
  const schema = tool.inputSchema as unknown;
  return {
    name: tool.name,
    description: typeof tool.description === 'string' ? tool.description : null,
    input_schema: isPlainObject(schema as JsonObject) ? (schema as JsonObject) : { type: 'object' },
    annotations: isPlainObject(tool.annotations as JsonObject) ? (tool.annotations as unknown as JsonObject) : null,
  };
}

function messageOf(error: unknown): string {
  if (error instanceof Error && error.message.length > 0) return error.message;
  return String(error);
}

/** The SDK's client over the gateway's egress. */
export class SdkMcpConnector implements McpConnector {
  constructor(
    private readonly egress: EgressHttp,
    private readonly limits: McpConnectorLimits,
  ) {}

  async connect(ctx: RequestContext, declaration: McpServerDeclaration): Promise<McpServerConnection> {
    const { Client, SSEClientTransport, StreamableHTTPClientTransport } = await loadSdk();
    // The egress client's errors are kept: the SDK may wrap them (or, for SSE, keep only their text).
    const refusals: GatewayError[] = [];
    const egressFetch = this.egress.createFetch(ctx, {
      headersTimeoutMs: this.limits.callTimeoutMs,
      // A session's event stream stays open, silent between calls, while the response runs (for `sse` it
      // carries every answer): no idle or total limit on bodies; each MCP request has the SDK's timeout.
      bodyIdleTimeoutMs: Number.POSITIVE_INFINITY,
      totalTimeoutMs: Number.POSITIVE_INFINITY,
      maxResponseBytes: this.limits.maxResponseBytes,
    });
    const fetch: EgressFetch = async (input, init) => {
      try {
        return await egressFetch(input, init);
      } catch (error) {
        if (isGatewayError(error)) refusals.push(error);
        throw error;
      }
    };
    const requestInit: RequestInit = { headers: { ...declaration.headers } };
    const transport: Transport = declaration.transport === 'sse'
      ? new SSEClientTransport(declaration.url, { fetch, requestInit })
      : new StreamableHTTPClientTransport(declaration.url, { fetch, requestInit, reconnectionOptions: noReconnection });
    const client = new Client(clientInfo);
    client.onerror = () => undefined;
    try {
      const options = { timeout: this.limits.listTimeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) };
      await client.connect(transport, options);
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < this.limits.maxListPages; page += 1) {
        const listed = await client.listTools(cursor === undefined ? {} : { cursor }, options);
        tools.push(...listed.tools.map(toolInfo));
        cursor = listed.nextCursor;
        if (cursor === undefined) break;
      }
      return new SdkMcpConnection(client, declaration, filterAllowed(tools, declaration.allowed), this.limits);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw listFailure(ctx, declaration, error, refusals);
    }
  }
}

/** `mcp` declarations use the streamable HTTP transport as given: a dropped event stream is not reopened. */
const noReconnection = { maxReconnectionDelay: 1000, initialReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1, maxRetries: 0 };

function listFailure(ctx: RequestContext, declaration: McpServerDeclaration, error: unknown, refusals: readonly GatewayError[]): GatewayError {
  if (ctx.signal?.aborted) return cancelledError();
  const field = `${declaration.param}.server_url`;
  const refused = refusals.find((failure) => failure.code === Code.INVALID_ARGUMENT) ?? (isGatewayError(error) && error.code === Code.INVALID_ARGUMENT ? error : undefined);
  if (refused) {
    return invalidArgument(`${field}: ${refused.message}`, { field, reason: refused.reason ?? 'EGRESS_URL_REFUSED', cause: refused });
  }
  const cause = refusals[0] ?? error;
  return failedPrecondition(
    `could not list the tools of MCP server ${declaration.label} (${declaration.url.origin}): ${messageOf(cause)}`,
    { field, reason: 'MCP_LIST_TOOLS_FAILED', cause },
  );
}

class SdkMcpConnection implements McpServerConnection {
  constructor(
    private readonly client: Client,
    readonly declaration: McpServerDeclaration,
    readonly tools: readonly McpToolInfo[],
    private readonly limits: McpConnectorLimits,
  ) {}

  /** One tool call, a CLIENT span `mcp tool <name>` when tracing is on. */
  call(ctx: RequestContext, name: string, args: JsonObject): Promise<ToolOutcome> {
    return inSpan(`mcp tool ${name}`, { 'berth.mcp_server': this.declaration.label, 'berth.tool': name }, () => this.callTool(ctx, name, args), SpanKind.CLIENT);
  }

  private async callTool(ctx: RequestContext, name: string, args: JsonObject): Promise<ToolOutcome> {
    try {
      const options = { timeout: this.limits.callTimeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) };
      const result = await this.client.callTool({ name, arguments: args }, undefined, options);
      return resultOutcome(result as CallToolResult);
    } catch (error) {
      if (ctx.signal?.aborted) throw cancelledError();
      return { error: `the MCP server ${this.declaration.label} failed the call: ${messageOf(error)}` };
    }
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}
