/**
 * MCP items sent back in `input` as a response returned them (a client that keeps its own conversation,
 * e.g. with `store: false`, replays the output): `mcp_list_tools` and `mcp_call`. The model reads a call
 * and its result as it did when the gateway ran it; a tool list is kept but not sent to the model.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';
import { isPlainObject } from '../validation/paths.js';
import { invalid, isAbsent } from './request-values.js';
import { newResponsesId } from './response-ids.js';
import type { McpCallItem, McpListToolsItem, McpToolInfo } from './response-types.js';

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

function idOf(item: JsonObject, path: string, prefix: 'mcpl' | 'mcp'): string {
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
