/**
 * Tools the gateway runs itself (MCP servers, later others) plug into the turn loop through these
 * interfaces: a provider declares the tool types it handles and opens one session per response; the
 * loop offers the session's functions to the model, and a call whose name the session handles is run
 * by it (the model then sees the result and goes on), while any other call is a client's function call
 * returned in the output. Function tools (`type: "function"`) need no provider: the client runs them.
 */
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { invalid } from './request-values.js';
import type { ConversationItem, FunctionCallItem, McpApprovalRequestItem, ResponseTool } from './response-types.js';

/** A function offered to the model (the chat-completions `tools[].function`). */
export interface ChatFunction {
  readonly name: string;
  readonly description?: string;
  readonly parameters?: JsonObject;
}

/**
 * A streamed response as a tool session writes to it: the session announces its items and sends their
 * events itself (e.g. `response.mcp_call.in_progress`), in the OpenAI Responses event model.
 */
export interface ToolEventStream {
  /** `response.output_item.added`; answers the item's output index. */
  itemAdded(item: ConversationItem): number;
  /** An event of an announced item: `{type, sequence_number, item_id, output_index, ...payload}`. */
  itemEvent(type: string, item: ConversationItem, index: number, payload?: JsonObject): void;
  /** `response.output_item.done` with the item as it ends. */
  itemDone(index: number, item: ConversationItem): void;
}

/** The gateway-run tools of one response. */
export interface ToolSession {
  /** What the model may call through this session. */
  readonly functions: readonly ChatFunction[];
  /** Items that open the response's output (e.g. the tool list a server offered). */
  readonly items: readonly ConversationItem[];
  /**
   * Streamed responses: sends `items` with the events of their type. Without it each is sent whole
   * (`output_item.added` then `output_item.done`).
   */
  streamItems?(events: ToolEventStream): void;
  /**
   * True when `name` is one of this session's functions. In a streamed response such a call is not
   * streamed as a `function_call` while the model forms it: `execute` announces what replaces it.
   */
  handles(name: string): boolean;
  /**
   * Runs one call and answers the items that record it and its result, which take the call's place in
   * the output (the call itself, or an item of the provider's own type, then its result); the model
   * reads them on the next turn. A tool that fails reports it in those items (the model sees the error), it does not throw.
   * With `events` (a streamed response) every item answered is also sent there, announced before the
   * call's first `await` (so calls run side by side keep their order) and done before it returns.
   * Throws only when the response itself must stop (CANCELLED when `ctx.signal` aborts).
   */
  execute(ctx: RequestContext, call: FunctionCallItem, events?: ToolEventStream): Promise<ConversationItem[]>;
  /**
   * Runs a call the client approved (an `mcp_approval_request` answered with `approve: true`) without
   * asking again, and answers the items recording it (an `mcp_call` naming the request), sent to `events`
   * as `execute` does. Undefined when this session does not offer the tool (the request no longer declares
   * it): the loop records the call as failed, which the model reads. Sessions without approvals leave it out.
   */
  runApproved?(ctx: RequestContext, request: McpApprovalRequestItem, events?: ToolEventStream): Promise<ConversationItem[] | undefined>;
  /** Releases what `open` took (connections). Called once, on every path. */
  close(): Promise<void>;
}

/**
 * Refuses a session whose functions take the name of a declared function tool (the model could not
 * tell which one it calls). INVALID_ARGUMENT naming `tools`.
 */
export function checkSessionNames(tools: readonly ResponseTool[], session: ToolSession): void {
  const offered = new Set(session.functions.map((fn) => fn.name));
  tools.forEach((tool, i) => {
    if (tool.type === 'function' && typeof tool.name === 'string' && offered.has(tool.name)) {
      throw invalid(`tools[${i}].name: ${tool.name} is also the name of a gateway-run tool offered to the model; rename the function`, `tools[${i}].name`);
    }
  });
}

/** Tool types the gateway executes, e.g. `mcp` and `sse`. Contributed to `responseToolProvidersToken`. */
export interface ResponseToolProvider {
  readonly types: readonly string[];
  /** The declaration as echoed in the response (every key present). Throws INVALID_ARGUMENT naming `param`. */
  normalize(tool: JsonObject, param: string): ResponseTool;
  /** Opens the session of one response over its declarations of this provider's types. */
  open(ctx: RequestContext, tools: readonly ResponseTool[]): Promise<ToolSession>;
}
