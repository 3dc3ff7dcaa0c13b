/**
 * `input` of a create request: a string (one user message) or a list of items, normalised to the stored
 * item shapes with ids. Messages carry text and images (by URL or data URI); function calls and their
 * outputs let a client answer the model's tool calls; reasoning and MCP items (`mcp-input.ts`) may be
 * sent back as they came.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';
import { newResponsesId } from './response-ids.js';
import { isPlainObject } from '../validation/paths.js';
import { invalid, isAbsent } from './request-values.js';
import { decodeCompaction } from './compaction-token.js';
import { parseMcpApprovalRequest, parseMcpApprovalResponse, parseMcpCall, parseMcpListTools } from './mcp-input.js';
import type {
  CompactionItem, ContentPart, ConversationItem, FunctionCallItem, FunctionCallOutputItem, InputImagePart, InputTextPart, ItemStatus,
  MessageItem, MessageRole, ReasoningItem,
} from './response-types.js';

const roles: readonly MessageRole[] = ['user', 'assistant', 'system', 'developer'];
const statuses: readonly ItemStatus[] = ['in_progress', 'completed', 'incomplete'];
const details = ['auto', 'low', 'high'] as const;

/** Longest image URL accepted (data URIs are bounded by the request body limit instead). */
const maxImageUrlLength = 2083;
const dataImagePattern = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i;

/** Parses `input`. Throws INVALID_ARGUMENT naming the offending path (`input[2].content[0].image_url`). */
export function parseInput(value: JsonValue | undefined): ConversationItem[] {
  if (typeof value === 'string') {
    return [{ type: 'message', id: newResponsesId('msg'), role: 'user', status: 'completed', content: [{ type: 'input_text', text: value }] }];
  }
  if (isAbsent(value)) throw invalid('input is required: a string or a list of input items', 'input', 'MISSING_REQUIRED_PARAMETER');
  if (!Array.isArray(value)) throw invalid('input must be a string or a list of input items', 'input', 'INVALID_TYPE');
  return value.map((item, i) => parseItem(item, `input[${i}]`));
}

function parseItem(item: JsonValue, path: string): ConversationItem {
  if (!isPlainObject(item)) throw invalid(`${path} must be an object`, path, 'INVALID_TYPE');
  const type = item.type ?? 'message';
  switch (type) {
    case 'message':
      return parseMessage(item, path);
    case 'function_call':
      return parseFunctionCall(item, path);
    case 'function_call_output':
      return parseFunctionCallOutput(item, path);
    case 'reasoning':
      return parseReasoning(item, path);
    case 'compaction':
      return parseCompaction(item, path);
    case 'mcp_list_tools':
      return parseMcpListTools(item, path);
    case 'mcp_call':
      return parseMcpCall(item, path);
    case 'mcp_approval_request':
      return parseMcpApprovalRequest(item, path);
    case 'mcp_approval_response':
      return parseMcpApprovalResponse(item, path);
    case 'item_reference':
      throw invalid(`${path}: item_reference is not supported; send the item itself or use previous_response_id`, `${path}.type`, 'UNSUPPORTED_VALUE');
    default:
      throw invalid(
        `${path}.type ${JSON.stringify(type)} is not supported: use message, function_call, function_call_output, reasoning, compaction, mcp_list_tools, mcp_call, mcp_approval_request or mcp_approval_response`,
        `${path}.type`, 'UNSUPPORTED_VALUE',
      );
  }
}

function idOf(item: JsonObject, path: string, prefix: 'msg' | 'fc' | 'fco' | 'rs' | 'cmp'): string {
  const id = item.id;
  if (isAbsent(id)) return newResponsesId(prefix);
  if (typeof id !== 'string' || id.length === 0 || id.length > 256) throw invalid(`${path}.id must be a non-empty string`, `${path}.id`, 'INVALID_TYPE');
  return id;
}

function statusOf(item: JsonObject, path: string): ItemStatus {
  const status = item.status;
  if (isAbsent(status)) return 'completed';
  if (typeof status !== 'string' || !(statuses as readonly string[]).includes(status)) {
    throw invalid(`${path}.status must be one of ${statuses.join(', ')}`, `${path}.status`, 'UNSUPPORTED_VALUE');
  }
  return status as ItemStatus;
}

function requiredString(item: JsonObject, key: string, path: string, maxLength?: number): string {
  const value = item[key];
  if (isAbsent(value)) throw invalid(`${path}.${key} is required`, `${path}.${key}`, 'MISSING_REQUIRED_PARAMETER');
  if (typeof value !== 'string') throw invalid(`${path}.${key} must be a string`, `${path}.${key}`, 'INVALID_TYPE');
  if (maxLength !== undefined && (value.length === 0 || value.length > maxLength)) {
    throw invalid(`${path}.${key} must be 1 to ${maxLength} characters`, `${path}.${key}`);
  }
  return value;
}

function parseMessage(item: JsonObject, path: string): MessageItem {
  const role = item.role;
  if (typeof role !== 'string' || !(roles as readonly string[]).includes(role)) {
    throw invalid(`${path}.role must be one of ${roles.join(', ')}`, `${path}.role`, isAbsent(role) ? 'MISSING_REQUIRED_PARAMETER' : 'UNSUPPORTED_VALUE');
  }
  const messageRole = role as MessageRole;
  const content = item.content;
  let parts: ContentPart[];
  if (typeof content === 'string') {
    parts = [messageRole === 'assistant' ? { type: 'output_text', text: content, annotations: [], logprobs: [] } : { type: 'input_text', text: content }];
  } else if (Array.isArray(content)) {
    parts = content.map((part, i) => parseContentPart(part, messageRole, `${path}.content[${i}]`));
  } else {
    throw invalid(`${path}.content must be a string or a list of content parts`, `${path}.content`, isAbsent(content) ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_TYPE');
  }
  return { type: 'message', id: idOf(item, path, 'msg'), role: messageRole, status: statusOf(item, path), content: parts };
}

function parseContentPart(part: JsonValue, role: MessageRole, path: string): ContentPart {
  if (!isPlainObject(part)) throw invalid(`${path} must be an object`, path, 'INVALID_TYPE');
  switch (part.type) {
    case 'input_text':
      return { type: 'input_text', text: requiredString(part, 'text', path) };
    case 'output_text': {
      if (role !== 'assistant') throw invalid(`${path}: output_text belongs to assistant messages; use input_text`, `${path}.type`, 'UNSUPPORTED_VALUE');
      const annotations = Array.isArray(part.annotations) ? part.annotations : [];
      const logprobs = Array.isArray(part.logprobs) ? part.logprobs : [];
      return { type: 'output_text', text: requiredString(part, 'text', path), annotations, logprobs };
    }
    case 'refusal':
      if (role !== 'assistant') throw invalid(`${path}: refusal belongs to assistant messages`, `${path}.type`, 'UNSUPPORTED_VALUE');
      return { type: 'refusal', refusal: requiredString(part, 'refusal', path) };
    case 'input_image':
      if (role === 'assistant') throw invalid(`${path}: assistant messages carry no images`, `${path}.type`, 'UNSUPPORTED_VALUE');
      return parseImage(part, path);
    case 'input_file':
      throw invalid(`${path}: input_file is not supported; send text as input_text and images as input_image`, `${path}.type`, 'UNSUPPORTED_VALUE');
    default:
      throw invalid(`${path}.type must be one of input_text, input_image, output_text, refusal`, `${path}.type`, 'UNSUPPORTED_VALUE');
  }
}

function parseImage(part: JsonObject, path: string): InputImagePart {
  if (!isAbsent(part.file_id)) throw invalid(`${path}.file_id is not supported: give image_url (a URL or a data URI)`, `${path}.file_id`, 'UNSUPPORTED_PARAMETER');
  const url = requiredString(part, 'image_url', path);
  if (url.startsWith('data:')) {
    if (!dataImagePattern.test(url)) throw invalid(`${path}.image_url must be a base64 data URI of an image (data:image/<type>;base64,...)`, `${path}.image_url`);
  } else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {}
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || url.length > maxImageUrlLength) {
      throw invalid(`${path}.image_url must be an http(s) URL of at most ${maxImageUrlLength} characters or a data URI`, `${path}.image_url`);
    }
  }
  const detail = part.detail;
  if (!isAbsent(detail) && (typeof detail !== 'string' || !(details as readonly string[]).includes(detail))) {
    throw invalid(`${path}.detail must be one of ${details.join(', ')}`, `${path}.detail`, 'UNSUPPORTED_VALUE');
  }
  return { type: 'input_image', image_url: url, detail: (detail as InputImagePart['detail'] | null | undefined) ?? 'auto' };
}

function parseFunctionCall(item: JsonObject, path: string): FunctionCallItem {
  return {
    type: 'function_call',
    id: idOf(item, path, 'fc'),
    call_id: requiredString(item, 'call_id', path, 256),
    name: requiredString(item, 'name', path, 256),
    arguments: requiredString(item, 'arguments', path),
    status: statusOf(item, path),
  };
}

function parseFunctionCallOutput(item: JsonObject, path: string): FunctionCallOutputItem {
  const output = item.output;
  let parsed: FunctionCallOutputItem['output'];
  if (typeof output === 'string') parsed = output;
  else if (Array.isArray(output)) {
    parsed = output.map((part, i) => {
      const partPath = `${path}.output[${i}]`;
      if (!isPlainObject(part)) throw invalid(`${partPath} must be an object`, partPath, 'INVALID_TYPE');
      if (part.type === 'input_text') return { type: 'input_text', text: requiredString(part, 'text', partPath) } satisfies InputTextPart;
      if (part.type === 'input_image') return parseImage(part, partPath);
      throw invalid(`${partPath}.type must be input_text or input_image`, `${partPath}.type`, 'UNSUPPORTED_VALUE');
    });
  } else {
    throw invalid(`${path}.output must be a string or a list of content parts`, `${path}.output`, isAbsent(output) ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_TYPE');
  }
  return { type: 'function_call_output', id: idOf(item, path, 'fco'), call_id: requiredString(item, 'call_id', path, 256), output: parsed, status: statusOf(item, path) };
}

function parseReasoning(item: JsonObject, path: string): ReasoningItem {
  const texts = <T extends string>(key: string, type: T): Array<{ type: T; text: string }> => {
    const list = item[key];
    if (isAbsent(list)) return [];
    if (!Array.isArray(list)) throw invalid(`${path}.${key} must be a list`, `${path}.${key}`, 'INVALID_TYPE');
    return list.map((entry, i) => {
      if (!isPlainObject(entry)) throw invalid(`${path}.${key}[${i}] must be an object`, `${path}.${key}[${i}]`, 'INVALID_TYPE');
      return { type, text: requiredString(entry, 'text', `${path}.${key}[${i}]`) };
    });
  };
  const encrypted = item.encrypted_content;
  if (!isAbsent(encrypted) && typeof encrypted !== 'string') throw invalid(`${path}.encrypted_content must be a string`, `${path}.encrypted_content`, 'INVALID_TYPE');
  return {
    type: 'reasoning',
    id: idOf(item, path, 'rs'),
    summary: texts('summary', 'summary_text'),
    content: texts('content', 'reasoning_text'),
    ...(typeof encrypted === 'string' ? { encrypted_content: encrypted } : {}),
    status: statusOf(item, path),
  };
}

/** A compaction item as `POST /responses/compact` answered it: its content must be one this gateway made. */
function parseCompaction(item: JsonObject, path: string): CompactionItem {
  const content = requiredString(item, 'encrypted_content', path);
  if (decodeCompaction(content) === undefined) {
    throw invalid(`${path}.encrypted_content is not a compaction this gateway made: send the compaction item POST /responses/compact answered, unchanged`, `${path}.encrypted_content`);
  }
  return { type: 'compaction', id: idOf(item, path, 'cmp'), encrypted_content: content };
}

/** True when any message or tool output of the items carries an image. */
export function hasImageInput(items: readonly ConversationItem[]): boolean {
  return items.some((item) => {
    if (item.type === 'message') return item.content.some((part) => part.type === 'input_image');
    if (item.type === 'function_call_output' && Array.isArray(item.output)) return item.output.some((part) => part.type === 'input_image');
    return false;
  });
}

/**
 * Every function_call_output must answer a function call of the conversation (earlier history or this
 * input, before it): the model cannot read a result of a call it never made.
 * Throws INVALID_ARGUMENT naming the input item.
 */
export function checkToolOutputs(history: readonly ConversationItem[], input: readonly ConversationItem[]): void {
  const calls = new Set<string>();
  for (const item of history) if (item.type === 'function_call') calls.add(item.call_id);
  input.forEach((item, i) => {
    if (item.type === 'function_call') calls.add(item.call_id);
    else if (item.type === 'function_call_output' && !calls.has(item.call_id)) {
      throw invalid(`No tool call found for function call output with call_id ${item.call_id}`, `input[${i}].call_id`);
    }
  });
}
