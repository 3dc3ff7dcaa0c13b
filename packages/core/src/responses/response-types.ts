/**
 * The Responses API's shapes as Berth stores and returns them. Type aliases (not interfaces) so that each
 * is a JSON object to the type checker and can be stored as it is.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';

/** A response's lifecycle: `queued` and `in_progress` belong to background and streaming responses. */
export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

/** Why a response stopped before it finished. */
export type IncompleteReason = 'max_output_tokens' | 'max_tool_calls' | 'content_filter';

/** Status of one item: a message cut short by a limit is `incomplete`. */
export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export type InputTextPart = { type: 'input_text'; text: string };
export type InputImagePart = { type: 'input_image'; image_url: string; detail: 'auto' | 'low' | 'high' };
export type OutputTextPart = { type: 'output_text'; text: string; annotations: JsonValue[]; logprobs: JsonValue[] };
export type RefusalPart = { type: 'refusal'; refusal: string };
export type ContentPart = InputTextPart | InputImagePart | OutputTextPart | RefusalPart;

export type MessageRole = 'user' | 'assistant' | 'system' | 'developer';

export type MessageItem = { type: 'message'; id: string; role: MessageRole; status: ItemStatus; content: ContentPart[] };

/** A tool call the model made (answered by the client, or by a gateway tool session). */
export type FunctionCallItem = { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: ItemStatus };

/** The result of a function call: text, or content parts (text and images). */
export type FunctionCallOutputItem = {
  type: 'function_call_output';
  id: string;
  call_id: string;
  output: string | Array<InputTextPart | InputImagePart>;
  status: ItemStatus;
};

export type ReasoningItem = {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  content: Array<{ type: 'reasoning_text'; text: string }>;
  /** Present only when the reasoning came encrypted (Open Responses: a string when present, never null). */
  encrypted_content?: string;
  status: ItemStatus;
};

/**
 * What `POST /responses/compact` made of a conversation: its summary, opaque to clients (who send the
 * item back as it came, in the input of a following response).
 */
export type CompactionItem = { type: 'compaction'; id: string; encrypted_content: string };

/** A tool an MCP server offered, as the `mcp_list_tools` item lists it. */
export type McpToolInfo = { name: string; description: string | null; input_schema: JsonObject; annotations: JsonObject | null };

/** The tools an MCP server offered to a response (after `allowed_tools`), the first items of its output. */
export type McpListToolsItem = { type: 'mcp_list_tools'; id: string; server_label: string; tools: McpToolInfo[]; error: string | null };

/**
 * A call the gateway made to an MCP server's tool, with its result: `output` (the tool's text) or `error`
 * (the tool reported an error, or the server could not be reached): the model reads either one.
 */
export type McpCallItem = {
  type: 'mcp_call';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: string | null;
  approval_request_id: string | null;
  status: 'in_progress' | 'calling' | 'completed' | 'failed' | 'incomplete';
};

/**
 * A call the model made to an MCP tool that needs the client's approval (`require_approval`): the gateway
 * did not run it, and the response ended with this item. The client answers it with an
 * {@link McpApprovalResponseItem} in the input of the next response.
 */
export type McpApprovalRequestItem = { type: 'mcp_approval_request'; id: string; server_label: string; name: string; arguments: string };

/** The client's answer to an {@link McpApprovalRequestItem}: approved, the gateway runs the call; denied, the model is told so. */
export type McpApprovalResponseItem = { type: 'mcp_approval_response'; id: string; approval_request_id: string; approve: boolean; reason: string | null };

/**
 * Every item a conversation holds: inputs, outputs, tool calls and their results, compaction summaries,
 * MCP tool lists, calls and approvals.
 */
export type ConversationItem =
  | MessageItem | FunctionCallItem | FunctionCallOutputItem | ReasoningItem | CompactionItem | McpListToolsItem | McpCallItem
  | McpApprovalRequestItem | McpApprovalResponseItem;

/** A function tool as echoed: every key present (null when unset). */
export type FunctionTool = { type: 'function'; name: string; description: string | null; parameters: JsonObject | null; strict: boolean };

/** A declared tool as echoed. Other types come from tool providers (MCP) and keep their own keys. */
export type ResponseTool = FunctionTool | (JsonObject & { type: string });

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; name: string } | (JsonObject & { type: string });

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: JsonObject; description: string | null; strict: boolean };

/** `verbosity` is left out unless the request set it (Open Responses: an enum value when present, never null). */
export type TextSettings = { format: TextFormat; verbosity?: 'low' | 'medium' | 'high' };

export type ReasoningSettings = { effort: string | null; summary: string | null };

/** Token counts summed over every model turn, with both the specification's and OpenAI's names. */
export type ResponseUsage = {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
  prompt_tokens: number;
  completion_tokens: number;
};

/** A failed response's error. */
export type ResponseError = { type: string; code: string; message: string };

/** The response object: the result of create, retrieve and list. */
export type ResponseObject = {
  id: string | null;
  object: 'response';
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  error: ResponseError | null;
  incomplete_details: { reason: IncompleteReason } | null;
  model: string;
  output: ConversationItem[];
  previous_response_id: string | null;
  usage: ResponseUsage;
  instructions: string | null;
  max_output_tokens: number | null;
  max_tool_calls: number | null;
  parallel_tool_calls: boolean;
  reasoning: ReasoningSettings;
  store: boolean;
  temperature: number;
  text: TextSettings;
  tool_choice: ToolChoice;
  tools: ResponseTool[];
  top_p: number;
  truncation: 'auto' | 'disabled';
  user: string | null;
  metadata: { [key: string]: string };
  background: boolean;
  service_tier: string;
  presence_penalty: number;
  frequency_penalty: number;
  top_logprobs: number;
  safety_identifier: string | null;
  prompt_cache_key: string | null;
};

/** The answer of `POST /responses/compact`: the conversation's user messages, then one compaction item. */
export type CompactedResponse = {
  id: string;
  object: 'response.compaction';
  created_at: number;
  output: Array<MessageItem | CompactionItem>;
  usage: ResponseUsage;
};

/** A list answer of the Responses API (responses, input items). */
export type ResponseList<T> = { object: 'list'; data: T[]; has_more: boolean; first_id: string | null; last_id: string | null };
