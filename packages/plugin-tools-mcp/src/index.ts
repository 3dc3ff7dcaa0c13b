/**
 * @berth/plugin-tools-mcp — MCP tools executed by the gateway in the Responses API: `tools` of type
 * `mcp` (streamable HTTP) and `sse` (HTTP+SSE), through @modelcontextprotocol/sdk and the gateway's
 * guarded egress client. Install with `plugins: [..., mcpTools()]`.
 */
import { definePlugin, egressHttpToken, responseToolProvidersToken, type GatewayPlugin } from '@berth/core';
import { SdkMcpConnector, type McpConnectorLimits } from './mcp-connection.js';
import { McpToolProvider } from './mcp-provider.js';

export interface McpToolsOptions {
  /** Connecting to a server and listing its tools, ms. Default 15 s. */
  readonly listTimeoutMs?: number;
  /** One tool call, ms; a call that takes longer is an error the model reads. Default 60 s. */
  readonly callTimeoutMs?: number;
  /** Largest answer read from a server, bytes. Default 4 MiB. */
  readonly maxResponseBytes?: number;
}

const defaults: McpConnectorLimits = { listTimeoutMs: 15_000, callTimeoutMs: 60_000, maxResponseBytes: 4 * 1024 * 1024, maxListPages: 20 };

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`mcpTools: ${name} must be a positive number, not ${String(value)}`);
  return value;
}

/** Contributes the MCP tool provider to the Responses API (`responseToolProvidersToken`). */
export function mcpTools(options: McpToolsOptions = {}): GatewayPlugin {
  const limits: McpConnectorLimits = {
    listTimeoutMs: positive('listTimeoutMs', options.listTimeoutMs, defaults.listTimeoutMs),
    callTimeoutMs: positive('callTimeoutMs', options.callTimeoutMs, defaults.callTimeoutMs),
    maxResponseBytes: positive('maxResponseBytes', options.maxResponseBytes, defaults.maxResponseBytes),
    maxListPages: defaults.maxListPages,
  };
  return definePlugin({
    id: 'tools-mcp',
    register(binder) {
      binder.contribute({
        token: responseToolProvidersToken,
        deps: [egressHttpToken],
        factory: (egress) => new McpToolProvider(new SdkMcpConnector(egress, limits)),
      });
    },
  });
}

export { McpToolProvider } from './mcp-provider.js';
export { SdkMcpConnector, type McpConnector, type McpConnectorLimits, type McpServerConnection } from './mcp-connection.js';
export type { McpServerDeclaration, AllowedTools, McpTransportKind } from './mcp-declaration.js';
export type { ToolOutcome } from './mcp-result.js';
