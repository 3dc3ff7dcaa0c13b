/**
 * Between the Responses API and the chat completions a model replica serves: conversation items and
 * instructions become chat messages, declared tools become chat tools, and a chat completion becomes
 * output items (reasoning, a message, function calls) with its finish reason and usage.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';
import { newResponsesId } from './response-ids.js';
import { decodeCompaction } from './compaction-token.js';
import { isPlainObject } from '../validation/paths.js';
import { mcpFunctionName } from './mcp-names.js';
import type {
  ContentPart, ConversationItem, FunctionCallItem, InputImagePart, McpApprovalRequestItem, McpCallItem, MessageItem, ReasoningItem, ResponseTool, ToolChoice,
} from './response-types.js';
import type { ChatFunction } from './tool-provider.js';

/** A chat-completions message as sent upstream. */
export type ChatMessage = JsonObject & { role: 'system' | 'user' | 'assistant' | 'tool' };

type ChatToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

function imagePart(part: InputImagePart): JsonObject {
  return { type: 'image_url', image_url: { url: part.image_url, detail: part.detail } };
}

/** A user, system or developer message's content: a string unless it carries images. */
function inputContent(parts: readonly ContentPart[]): string | JsonObject[] {
  if (!parts.some((part) => part.type === 'input_image')) return parts.map(partText).join('\n');
  return parts.map((part) => (part.type === 'input_image' ? imagePart(part) : { type: 'text', text: partText(part) }));
}

function partText(part: ContentPart): string {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return part.text;
    case 'refusal':
      return part.refusal;
    case 'input_image':
      return '';
  }
}

/**
 * The chat messages for a conversation: `instructions` first as a system message, then every item in
 * order. Developer messages become system messages (what chat templates know); consecutive function
 * calls join the assistant message before them as its `tool_calls`; a function call's output is a
 * `tool` message (images in it follow as a user message); reasoning items are not sent back; a
 * compaction item is a user message giving the summary it holds. An MCP call is both: a tool call of the
 * assistant message before it (under the name the model was offered, see {@link mcpFunctionName}) and a
 * `tool` message with its output or error; an MCP tool list is not sent (its tools are offered as functions).
 * An MCP approval request is not sent itself: a denial answering it becomes the call and a `tool` message
 * telling the model it was denied; an approved call is the `mcp_call` that ran it; a request left unanswered
 * is not shown to the model.
 */
export function toChatMessages(instructions: string | null, items: readonly ConversationItem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (instructions !== null && instructions.length > 0) messages.push({ role: 'system', content: instructions });
  const approvalRequests = new Map<string, McpApprovalRequestItem>();
  for (const item of items) if (item.type === 'mcp_approval_request') approvalRequests.set(item.id, item);
  for (const item of items) {
    switch (item.type) {
      case 'message':
        messages.push(messageOf(item));
        break;
      case 'function_call': {
        const call: ChatToolCall = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
        const last = messages[messages.length - 1];
        if (last?.role === 'assistant') {
          const calls = Array.isArray(last.tool_calls) ? last.tool_calls : [];
          last.tool_calls = [...calls, call];
        } else {
          messages.push({ role: 'assistant', content: null, tool_calls: [call] });
        }
        break;
      }
      case 'function_call_output': {
        if (typeof item.output === 'string') {
          messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
          break;
        }
        const text = item.output.filter((part) => part.type === 'input_text').map((part) => part.text).join('\n');
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: text });
        const images = item.output.filter((part): part is InputImagePart => part.type === 'input_image');
        if (images.length > 0) messages.push({ role: 'user', content: images.map(imagePart) });
        break;
      }
      case 'mcp_call':
        pushMcpCall(messages, item, item.error !== null ? `error: ${item.error}` : (item.output ?? ''));
        break;
      case 'mcp_approval_response': {
        const request = approvalRequests.get(item.approval_request_id);
        if (!item.approve && request) pushMcpCall(messages, request, deniedCallText(item.reason));
        break;
      }
      case 'reasoning':
      case 'mcp_list_tools':
      case 'mcp_approval_request':
        break;
      case 'compaction':
        messages.push({ role: 'user', content: `${compactionHeading}\n\n${decodeCompaction(item.encrypted_content) ?? ''}` });
        break;
    }
  }
  return messages;
}

/** The first line of the user message a compaction item becomes: the model reads the summary after it. */
export const compactionHeading = 'Summary of the earlier part of this conversation (it was compacted):';

/** What the model reads as the result of an MCP call the client denied. */
export function deniedCallText(reason: string | null): string {
  return `error: the user denied this tool call${reason !== null && reason.length > 0 ? `: ${reason}` : ''}`;
}

/** An MCP call joins the assistant message that the tool results after it answer; its result (`content`) follows them. */
function pushMcpCall(messages: ChatMessage[], item: McpCallItem | McpApprovalRequestItem, content: string): void {
  const call: ChatToolCall = { id: item.id, type: 'function', function: { name: mcpFunctionName(item.server_label, item.name), arguments: item.arguments } };
  let at = messages.length - 1;
  while (at >= 0 && messages[at]!.role === 'tool') at -= 1;
  const assistant = messages[at];
  if (assistant?.role === 'assistant') {
    assistant.tool_calls = [...(Array.isArray(assistant.tool_calls) ? assistant.tool_calls : []), call];
  } else {
    messages.push({ role: 'assistant', content: null, tool_calls: [call] });
  }
  messages.push({ role: 'tool', tool_call_id: item.id, content });
}

function messageOf(item: MessageItem): ChatMessage {
  if (item.role === 'assistant') return { role: 'assistant', content: item.content.map(partText).join('') };
  return { role: item.role === 'user' ? 'user' : 'system', content: inputContent(item.content) };
}

/** The functions the model is offered: the declared function tools, then a tool session's. */
export function offeredFunctions(tools: readonly ResponseTool[], sessionFunctions: readonly ChatFunction[] = []): ChatFunction[] {
  const declared: ChatFunction[] = [];
  for (const tool of tools) {
    if (tool.type !== 'function' || typeof tool.name !== 'string') continue;
    declared.push({
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      ...(isPlainObject(tool.parameters) ? { parameters: tool.parameters } : {}),
    });
  }
  return [...declared, ...sessionFunctions];
}

/** Chat-completions `tools` for the offered functions. */
export function chatTools(functions: readonly ChatFunction[]): JsonObject[] {
  return functions.map((f) => {
    const fn: JsonObject = { name: f.name };
    if (f.description !== undefined) fn.description = f.description;
    if (f.parameters !== undefined) fn.parameters = f.parameters;
    return { type: 'function', function: fn };
  });
}

/**
 * Chat-completions `tool_choice`; undefined leaves the engine's default (auto). An MCP choice
 * `{type: "mcp", server_label, name}` names the function its tool is offered as.
 */
export function chatToolChoice(choice: ToolChoice): JsonValue | undefined {
  if (choice === 'none' || choice === 'required') return choice;
  if (choice === 'auto') return undefined;
  if (typeof choice.name !== 'string') return 'required';
  const name = choice.type === 'mcp' && typeof choice.server_label === 'string' ? mcpFunctionName(choice.server_label, choice.name) : choice.name;
  return { type: 'function', function: { name } };
}

/** Token counts of one chat completion. */
export interface TurnUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  readonly reasoningTokens: number;
}

/** How a chat completion ended, as the chat API says. */
export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';

export interface TranslatedTurn {
  readonly items: ConversationItem[];
  readonly finishReason: ChatFinishReason;
  readonly usage: TurnUsage;
  /** Tool calls the model made beyond the turn's allowance: left out of `items` (and never streamed). */
  readonly droppedCalls: number;
}

const count = (value: JsonValue | undefined): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/** Token counts of a chat completion's `usage` (a stream's last chunk carries the same); missing counts are 0. */
export function usageOf(usage: JsonValue | undefined): TurnUsage {
  const counts = isPlainObject(usage) ? usage : {};
  const prompt = isPlainObject(counts.prompt_tokens_details) ? counts.prompt_tokens_details : {};
  const completion = isPlainObject(counts.completion_tokens_details) ? counts.completion_tokens_details : {};
  return {
    promptTokens: count(counts.prompt_tokens),
    completionTokens: count(counts.completion_tokens),
    cachedTokens: count(prompt.cached_tokens),
    reasoningTokens: count(completion.reasoning_tokens),
  };
}

/** A choice's `finish_reason`; `other` for anything the chat API does not name (null included). */
export function finishOf(value: JsonValue | undefined): ChatFinishReason {
  return value === 'stop' || value === 'length' || value === 'tool_calls' || value === 'content_filter' ? value : 'other';
}

/** The reasoning text of a message or a stream delta: `reasoning_content` (vLLM), else `reasoning`. */
export function reasoningOf(message: JsonObject): string {
  return typeof message.reasoning_content === 'string' ? message.reasoning_content : typeof message.reasoning === 'string' ? message.reasoning : '';
}

/** A function call's `call_id`: the engine's tool-call id, or a fresh `call_…` when it sent none. */
export function callIdOf(id: JsonValue | undefined): string {
  return typeof id === 'string' && id.length > 0 ? id : `call_${newResponsesId('fc').slice(3, 27)}`;
}

/**
 * Output items of a chat completion's first choice: a reasoning item when the model returned reasoning
 * and `withReasoning`, a message (its text or refusal; `incomplete` when cut at the token limit) unless
 * the answer is only tool calls, then one function_call item per tool call, at most `maxCalls` of them.
 * Throws a plain Error when the completion has no choice with a message (a broken upstream).
 */
export function fromChatCompletion(completion: JsonObject, withReasoning: boolean, maxCalls = Number.POSITIVE_INFINITY): TranslatedTurn {
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!isPlainObject(choice) || !isPlainObject(choice.message)) throw new Error('the chat completion has no choice with a message');
  const message = choice.message;
  const finishReason = finishOf(choice.finish_reason);
  const items: ConversationItem[] = [];

  const reasoning = reasoningOf(message);
  if (withReasoning && reasoning.length > 0) {
    const item: ReasoningItem = {
      type: 'reasoning', id: newResponsesId('rs'), summary: [], content: [{ type: 'reasoning_text', text: reasoning }], status: 'completed',
    };
    items.push(item);
  }

  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isPlainObject) : [];
  const text = typeof message.content === 'string' ? message.content : '';
  const refusal = typeof message.refusal === 'string' && message.refusal.length > 0 ? message.refusal : undefined;
  if (text.length > 0 || refusal !== undefined || toolCalls.length === 0) {
    const logprobs = isPlainObject(choice.logprobs) && Array.isArray(choice.logprobs.content) ? choice.logprobs.content : [];
    const content: ContentPart[] = refusal !== undefined && text.length === 0
      ? [{ type: 'refusal', refusal }]
      : [{ type: 'output_text', text, annotations: [], logprobs }];
    items.push({ type: 'message', id: newResponsesId('msg'), role: 'assistant', status: finishReason === 'length' ? 'incomplete' : 'completed', content });
  }
  const allowed = toolCalls.slice(0, Math.max(0, maxCalls));
  for (const call of allowed) {
    const fn = isPlainObject(call.function) ? call.function : {};
    const item: FunctionCallItem = {
      type: 'function_call',
      id: newResponsesId('fc'),
      call_id: callIdOf(call.id),
      name: typeof fn.name === 'string' ? fn.name : '',
      arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
      status: 'completed',
    };
    items.push(item);
  }

  return { items, finishReason, usage: usageOf(completion.usage), droppedCalls: toolCalls.length - allowed.length };
}
