/**
 * Tools the gateway runs itself (MCP servers, later others) plug into the turn loop through these
 * interfaces: a provider declares the tool types it handles and opens one session per response; the
 * loop offers the session's functions to the model, and a call whose name the session handles is run
 * by it (the model then sees the result and goes on), while any other call is a client's function call
 * returned in the output. Function tools (`type: "function"`) need no provider: the client runs them.
 */
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { ConversationItem, FunctionCallItem, ResponseTool } from './response-types.js';

/** A function offered to the model (the chat-completions `tools[].function`). */
export interface ChatFunction {
  readonly name: string;
  readonly description?: string;
  readonly parameters?: JsonObject;
}

/** The gateway-run tools of one response. */
export interface ToolSession {
  /** What the model may call through this session. */
  readonly functions: readonly ChatFunction[];
  /** Items that open the response's output (e.g. the tool list a server offered). */
  readonly items: readonly ConversationItem[];
  /** True when `name` is one of this session's functions. */
  handles(name: string): boolean;
  /**
   * Runs one call and answers the items that record it and its result, which take the call's place in
   * the output (the call itself, or an item of the provider's own type, then its result); the model
   * reads them on the next turn. A tool that fails reports it in those items (the model sees the error), it does not throw.
   * Throws only when the response itself must stop (CANCELLED when `ctx.signal` aborts).
   */
  execute(ctx: RequestContext, call: FunctionCallItem): Promise<ConversationItem[]>;
  /** Releases what `open` took (connections). Called once, on every path. */
  close(): Promise<void>;
}

/** Tool types the gateway executes, e.g. `mcp` and `sse`. Contributed to `responseToolProvidersToken`. */
export interface ResponseToolProvider {
  readonly types: readonly string[];
  /** The declaration as echoed in the response (every key present). Throws INVALID_ARGUMENT naming `param`. */
  normalize(tool: JsonObject, param: string): ResponseTool;
  /** Opens the session of one response over its declarations of this provider's types. */
  open(ctx: RequestContext, tools: readonly ResponseTool[]): Promise<ToolSession>;
}
