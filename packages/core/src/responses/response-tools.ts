/**
 * `tools` and `tool_choice` of a create request. Function tools are parsed here; other types belong to
 * a {@link ResponseToolProvider} (MCP servers run by the gateway), and a type nobody handles is refused.
 */
import type { JsonObject, JsonValue } from '../contracts/json.js';
import { isPlainObject } from '../validation/paths.js';
import { invalid, isAbsent } from './request-values.js';
import type { FunctionTool, ResponseTool, ToolChoice } from './response-types.js';
import type { ResponseToolProvider } from './tool-provider.js';

/** Most tools one request may declare. */
export const maxTools = 128;
const namePattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Types the reference API knows that Berth runs only through a provider (MCP), named in the refusal. */
const mcpTypes: ReadonlySet<string> = new Set(['mcp', 'sse']);

/** Parses `tools`: each echoed with every key present. Throws INVALID_ARGUMENT naming `tools[i]…`. */
export function parseTools(value: JsonValue | undefined, providers: readonly ResponseToolProvider[]): ResponseTool[] {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) throw invalid('tools must be a list of tool declarations', 'tools', 'INVALID_TYPE');
  if (value.length > maxTools) throw invalid(`tools may hold at most ${maxTools} tools`, 'tools');
  const names = new Set<string>();
  return value.map((tool, i) => {
    const path = `tools[${i}]`;
    if (!isPlainObject(tool) || typeof tool.type !== 'string') throw invalid(`${path} must be an object with a type`, `${path}.type`, 'INVALID_TYPE');
    if (tool.type === 'function') {
      const parsed = parseFunctionTool(tool, path);
      if (names.has(parsed.name)) throw invalid(`${path}.name: tool ${parsed.name} is declared twice`, `${path}.name`);
      names.add(parsed.name);
      return parsed;
    }
    const provider = providers.find((p) => p.types.includes(tool.type as string));
    if (provider) return provider.normalize(tool, path);
    if (mcpTypes.has(tool.type)) {
      throw invalid(
        `${path}: tools of type ${tool.type} (MCP servers run by the gateway) are not served by this gateway: its host installs them with the @berth/plugin-tools-mcp plugin`,
        `${path}.type`, 'UNSUPPORTED_VALUE',
      );
    }
    throw invalid(`${path}.type ${JSON.stringify(tool.type)} is not supported: use function tools`, `${path}.type`, 'UNSUPPORTED_VALUE');
  });
}

function parseFunctionTool(tool: JsonObject, path: string): FunctionTool {
  const name = tool.name;
  if (typeof name !== 'string' || !namePattern.test(name)) {
    throw invalid(`${path}.name must be 1 to 64 letters, digits, underscores or hyphens`, `${path}.name`, isAbsent(name) ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_VALUE');
  }
  const description = tool.description;
  if (!isAbsent(description) && typeof description !== 'string') throw invalid(`${path}.description must be a string`, `${path}.description`, 'INVALID_TYPE');
  const parameters = tool.parameters;
  if (!isAbsent(parameters) && !isPlainObject(parameters)) throw invalid(`${path}.parameters must be a JSON Schema object`, `${path}.parameters`, 'INVALID_TYPE');
  const strict = tool.strict;
  if (!isAbsent(strict) && typeof strict !== 'boolean') throw invalid(`${path}.strict must be a boolean`, `${path}.strict`, 'INVALID_TYPE');
  return {
    type: 'function',
    name,
    description: typeof description === 'string' ? description : null,
    parameters: isPlainObject(parameters) ? parameters : null,
    strict: typeof strict === 'boolean' ? strict : true,
  };
}

/**
 * Parses `tool_choice` (default `auto`): `none`, `auto`, `required`, or `{type: "function", name}`
 * naming a declared function tool. `required` and a named tool need tools. Provider types may be named
 * with their own object (`{type: "mcp", server_label, name?}`), checked by the provider's session.
 */
export function parseToolChoice(value: JsonValue | undefined, tools: readonly ResponseTool[]): ToolChoice {
  if (isAbsent(value)) return 'auto';
  if (value === 'none' || value === 'auto' || value === 'required') {
    if (value === 'required' && tools.length === 0) throw invalid('tool_choice required needs at least one tool in tools', 'tool_choice');
    return value;
  }
  if (typeof value === 'string') throw invalid('tool_choice must be none, auto, required or an object naming a tool', 'tool_choice', 'UNSUPPORTED_VALUE');
  if (!isPlainObject(value) || typeof value.type !== 'string') throw invalid('tool_choice must be a string or an object with a type', 'tool_choice', 'INVALID_TYPE');
  if (value.type === 'function') {
    const name = value.name;
    if (typeof name !== 'string') throw invalid('tool_choice.name is required for a function', 'tool_choice.name', 'MISSING_REQUIRED_PARAMETER');
    if (!tools.some((tool) => tool.type === 'function' && tool.name === name)) {
      throw invalid(`tool_choice names function ${name}, which is not among the tools`, 'tool_choice.name');
    }
    return { type: 'function', name };
  }
  if (tools.some((tool) => tool.type === value.type)) return value as ToolChoice;
  throw invalid(`tool_choice type ${JSON.stringify(value.type)} is not supported: use function, or a declared tool's type`, 'tool_choice.type', 'UNSUPPORTED_VALUE');
}
