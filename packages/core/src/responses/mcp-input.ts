/**
 * MCP items in `input`: `mcp_list_tools`, `mcp_call` and `mcp_approval_request` sent back as a response
 * returned them (a client that keeps its own conversation, e.g. with `store: false`, replays the output),
 * and the client's `mcp_approval_response` to an approval request. The model reads a call and its result
 * as it did when the gateway ran it; a tool list is kept but not sent to the model.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';
import { isPlainObject } from '../validation/paths.js';
import { invalid, isAbsent } from './request-values.js';
import { newResponsesId } from './response-ids.js';
import type { ConversationItem, McpApprovalRequestItem, McpApprovalResponseItem, McpCallItem, McpListToolsItem, McpToolInfo } from './response-types.js';

const callStatuses: ReadonlyArray<McpCallItem['status']> = ['in_progress', 'calling', 'completed', 'failed', 'incomplete'];

function text(item: JsonObject, key: string, path: string, required: boolean): string | null {
  const value = item[key];
  if (isAbsent(value)) {
    if (required) throw invalid(`${path}.${key} is required`, `${path}.${key}`, 'MISSING_REQUIRED_PARAMETER');
    return null;
  }
  if (typeof value !== 'string') throw invalid(`${path}.${key} must be a string`, `${path}.${key}`, 'INVALID_TYPE');
  return value;
}

function idOf(item: JsonObject, path: string, prefix: 'mcpl' | 'mcp' | 'mcpr' | 'mcpa'): string {
  const id = text(item, 'id', path, false);
  if (id === null) return newResponsesId(prefix);
  if (id.length === 0 || id.length > 256) throw invalid(`${path}.id must be 1 to 256 characters`, `${path}.id`);
  return id;
}

function objectOrNull(value: JsonValue | undefined, path: string): JsonObject | null {
  if (isAbsent(value)) return null;
  if (!isPlainObject(value)) throw invalid(`${path} must be an object`, path, 'INVALID_TYPE');
  return value;
}

export function parseMcpListTools(item: JsonObject, path: string): McpListToolsItem {
  const tools = item.tools;
  if (!Array.isArray(tools)) throw invalid(`${path}.tools must be a list of tools`, `${path}.tools`, isAbsent(tools) ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_TYPE');
  return {
    type: 'mcp_list_tools',
    id: idOf(item, path, 'mcpl'),
    server_label: text(item, 'server_label', path, true)!,
    tools: tools.map((tool, i): McpToolInfo => {
      const toolPath = `${path}.tools[${i}]`;
      if (!isPlainObject(tool)) throw invalid(`${toolPath} must be an object`, toolPath, 'INVALID_TYPE');
      return {
        name: text(tool, 'name', toolPath, true)!,
        description: text(tool, 'description', toolPath, false),
        input_schema: objectOrNull(tool.input_schema, `${toolPath}.input_schema`) ?? { type: 'object' },
        annotations: objectOrNull(tool.annotations, `${toolPath}.annotations`),
      };
    }),
    error: text(item, 'error', path, false),
  };
}

export function parseMcpCall(item: JsonObject, path: string): McpCallItem {
  const status = item.status;
  if (!isAbsent(status) && (typeof status !== 'string' || !(callStatuses as readonly string[]).includes(status))) {
    throw invalid(`${path}.status must be one of ${callStatuses.join(', ')}`, `${path}.status`, 'UNSUPPORTED_VALUE');
  }
  const output = text(item, 'output', path, false);
  const error = text(item, 'error', path, false);
  return {
    type: 'mcp_call',
    id: idOf(item, path, 'mcp'),
    server_label: text(item, 'server_label', path, true)!,
    name: text(item, 'name', path, true)!,
    arguments: text(item, 'arguments', path, true)!,
    output,
    error,
    approval_request_id: text(item, 'approval_request_id', path, false),
    status: isAbsent(status) ? (error !== null ? 'failed' : 'completed') : (status as McpCallItem['status']),
  };
}

export function parseMcpApprovalRequest(item: JsonObject, path: string): McpApprovalRequestItem {
  const id = text(item, 'id', path, true)!;
  if (id.length === 0 || id.length > 256) throw invalid(`${path}.id must be 1 to 256 characters`, `${path}.id`);
  return {
    type: 'mcp_approval_request',
    id,
    server_label: text(item, 'server_label', path, true)!,
    name: text(item, 'name', path, true)!,
    arguments: text(item, 'arguments', path, true)!,
  };
}

export function parseMcpApprovalResponse(item: JsonObject, path: string): McpApprovalResponseItem {
  const requestId = text(item, 'approval_request_id', path, true)!;
  if (requestId.length === 0 || requestId.length > 256) throw invalid(`${path}.approval_request_id must be 1 to 256 characters`, `${path}.approval_request_id`);
  const approve = item.approve;
  if (typeof approve !== 'boolean') {
    throw invalid(`${path}.approve must be true or false`, `${path}.approve`, isAbsent(approve) ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_TYPE');
  }
  return {
    type: 'mcp_approval_response',
    id: idOf(item, path, 'mcpa'),
    approval_request_id: requestId,
    approve,
    reason: text(item, 'reason', path, false),
  };
}

/**
 * Every `mcp_approval_response` of the input must answer an approval request of the conversation (earlier
 * history or this input, before it) that no earlier response answered and no call ran already.
 * Throws INVALID_ARGUMENT naming the input item's `approval_request_id`.
 */
export function checkApprovalResponses(history: readonly ConversationItem[], input: readonly ConversationItem[]): void {
  const requests = new Set<string>();
  const answered = new Set<string>();
  const note = (item: ConversationItem): void => {
    if (item.type === 'mcp_approval_request') requests.add(item.id);
    else if (item.type === 'mcp_approval_response') answered.add(item.approval_request_id);
    else if (item.type === 'mcp_call' && item.approval_request_id !== null) answered.add(item.approval_request_id);
  };
  history.forEach(note);
  input.forEach((item, i) => {
    if (item.type === 'mcp_approval_response') {
      const id = item.approval_request_id;
      const param = `input[${i}].approval_request_id`;
      if (!requests.has(id)) throw invalid(`No MCP approval request found with id ${id}`, param);
      if (answered.has(id)) throw invalid(`The MCP approval request ${id} was already answered`, param);
    }
    note(item);
  });
}

/**
 * The approved requests of a conversation whose call has not run yet (no `mcp_call` names them), in the
 * order they were approved: the calls a response runs before asking the model.
 */
export function approvedPendingCalls(items: readonly ConversationItem[]): McpApprovalRequestItem[] {
  const requests = new Map<string, McpApprovalRequestItem>();
  const ran = new Set<string>();
  for (const item of items) {
    if (item.type === 'mcp_approval_request') requests.set(item.id, item);
    else if (item.type === 'mcp_call' && item.approval_request_id !== null) ran.add(item.approval_request_id);
  }
  const pending: McpApprovalRequestItem[] = [];
  for (const item of items) {
    if (item.type !== 'mcp_approval_response' || !item.approve || ran.has(item.approval_request_id)) continue;
    const request = requests.get(item.approval_request_id);
    if (request) {
      pending.push(request);
      ran.add(request.id);
    }
  }
  return pending;
}
