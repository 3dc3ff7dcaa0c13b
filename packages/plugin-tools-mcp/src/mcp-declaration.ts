/**
 * The `tools[i]` declarations of MCP servers in a create request, `{type: "mcp", server_url,
 * server_label, allowed_tools, headers, require_approval}` and `{type: "sse", server_url, …}`: checked
 * (INVALID_ARGUMENT naming `tools[i].…`, the Responses API's `param`) and echoed with the five keys
 * present (null when unset).
 */
import { invalidArgument, isPlainObject, type JsonObject, type JsonValue, type McpToolInfo, type ResponseTool } from '@berth/core';

/** How the gateway reaches the server: `mcp` the streamable HTTP transport, `sse` the older HTTP+SSE one. */
export type McpTransportKind = 'mcp' | 'sse';

/** `allowed_tools`: the tool names offered (null: every tool), and whether only read-only tools are. */
export interface AllowedTools {
  readonly names: ReadonlySet<string> | null;
  readonly readOnly: boolean;
}

/** One MCP server of a request, as the session needs it. */
export interface McpServerDeclaration {
  readonly transport: McpTransportKind;
  readonly url: URL;
  /** `server_label`, or for an `sse` server without one, `sse_` and its host (see `defaultLabel`). */
  readonly label: string;
  readonly allowed: AllowedTools;
  readonly headers: Readonly<Record<string, string>>;
  /** `require_approval`: which calls wait for the client's approval. */
  readonly approval: ApprovalPolicy;
  /** `tools[i]`: where the declaration stands in the request, for errors. */
  readonly param: string;
}

const labelPattern = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const headerNamePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const maxUrlLength = 2048;
const maxHeaders = 64;
const maxHeaderValueLength = 8192;
const maxAllowedTools = 128;
const maxToolNameLength = 128;

/** Headers the transport sets itself: a declaration may not replace them. */
const transportHeaders: ReadonlySet<string> = new Set([
  'accept', 'content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id',
]);

/** Keys of the reference API's declaration Berth does not serve: refused by name rather than ignored. */
const unsupportedKeys: Readonly<Record<string, string>> = {
  authorization: 'send the token in headers as Authorization: Bearer <token>',
  connector_id: 'service connectors are not served; give server_url',
  tunnel_id: 'tunnels are not served; give server_url',
  defer_loading: 'tool search is not served',
  allowed_callers: 'programmatic tool calling is not served',
};

const knownKeys: ReadonlySet<string> = new Set(['type', 'server_url', 'server_label', 'server_description', 'allowed_tools', 'headers', 'require_approval']);

function invalid(message: string, param: string, reason = 'INVALID_VALUE'): Error {
  return invalidArgument(message, { field: param, reason });
}

const isAbsent = (value: JsonValue | undefined): value is null | undefined => value === undefined || value === null;

/**
 * Checks one declaration: answers the echo (every key of the reference API's declaration, null when
 * unset; `server_description` only when given) and what the session needs.
 */
export function parseMcpDeclaration(tool: JsonObject, param: string): { echo: ResponseTool; declaration: McpServerDeclaration } {
  const transport = tool.type;
  if (transport !== 'mcp' && transport !== 'sse') throw invalid(`${param}.type must be mcp or sse`, `${param}.type`, 'UNSUPPORTED_VALUE');
  for (const key of Object.keys(tool)) {
    const hint = unsupportedKeys[key];
    if (hint !== undefined) throw invalid(`${param}.${key} is not supported by this gateway: ${hint}`, `${param}.${key}`, 'UNSUPPORTED_PARAMETER');
    if (!knownKeys.has(key)) throw invalid(`Unknown parameter: '${param}.${key}'.`, `${param}.${key}`, 'UNKNOWN_PARAMETER');
  }
  const url = parseServerUrl(tool.server_url, `${param}.server_url`);
  const label = parseLabel(tool.server_label, `${param}.server_label`, transport === 'mcp');
  const description = tool.server_description;
  if (!isAbsent(description) && typeof description !== 'string') throw invalid(`${param}.server_description must be a string`, `${param}.server_description`, 'INVALID_TYPE');
  const allowedTools = parseAllowedTools(tool.allowed_tools, `${param}.allowed_tools`);
  const headers = parseHeaders(tool.headers, `${param}.headers`);
  const requireApproval = parseRequireApproval(tool.require_approval, `${param}.require_approval`);
  const echo: ResponseTool = {
    type: transport,
    server_label: label,
    server_url: tool.server_url as string,
    allowed_tools: allowedTools.echo,
    headers: headers === null ? null : { ...headers },
    require_approval: requireApproval.echo,
    ...(typeof description === 'string' ? { server_description: description } : {}),
  };
  return { echo, declaration: { transport, url, label: label ?? defaultLabel(url), allowed: allowedTools.allowed, headers: headers ?? {}, approval: requireApproval.policy, param } };
}

/** The label of an `sse` server declared without one: `sse_` and its host name, in label characters. */
export function defaultLabel(url: URL): string {
  return `sse_${url.hostname.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

function parseServerUrl(value: JsonValue | undefined, param: string): URL {
  if (isAbsent(value)) throw invalid(`${param} is required: the URL of the MCP server`, param, 'MISSING_REQUIRED_PARAMETER');
  if (typeof value !== 'string') throw invalid(`${param} must be a string`, param, 'INVALID_TYPE');
  if (value.length > maxUrlLength) throw invalid(`${param} must be at most ${maxUrlLength} characters`, param);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${param} must be an absolute http(s) URL`, param);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`${param} must be an http(s) URL, not ${url.protocol}`, param);
  if (url.username !== '' || url.password !== '') throw invalid(`${param} must not contain credentials: send them in headers`, param);
  return url;
}

function parseLabel(value: JsonValue | undefined, param: string, required: boolean): string | null {
  if (isAbsent(value)) {
    if (required) throw invalid(`${param} is required: a name for the server (letters, digits, _ and -)`, param, 'MISSING_REQUIRED_PARAMETER');
    return null;
  }
  if (typeof value !== 'string') throw invalid(`${param} must be a string`, param, 'INVALID_TYPE');
  if (!labelPattern.test(value)) throw invalid(`${param} must start with a letter and hold 1 to 64 letters, digits, underscores or hyphens`, param);
  return value;
}

function parseToolNames(value: JsonValue | undefined, param: string): string[] {
  if (!Array.isArray(value)) throw invalid(`${param} must be a list of tool names`, param, 'INVALID_TYPE');
  if (value.length > maxAllowedTools) throw invalid(`${param} may name at most ${maxAllowedTools} tools`, param);
  return value.map((name, i) => {
    if (typeof name !== 'string') throw invalid(`${param}[${i}] must be a string`, `${param}[${i}]`, 'INVALID_TYPE');
    if (name.length === 0 || name.length > maxToolNameLength) throw invalid(`${param}[${i}] must be 1 to ${maxToolNameLength} characters`, `${param}[${i}]`);
    return name;
  });
}

/** A list of names, or the filter object `{tool_names, read_only}`; null: every tool. */
function parseAllowedTools(value: JsonValue | undefined, param: string): { echo: JsonValue; allowed: AllowedTools } {
  if (isAbsent(value)) return { echo: null, allowed: { names: null, readOnly: false } };
  if (Array.isArray(value)) {
    const names = parseToolNames(value, param);
    return { echo: names, allowed: { names: new Set(names), readOnly: false } };
  }
  if (!isPlainObject(value)) throw invalid(`${param} must be a list of tool names or {tool_names, read_only}`, param, 'INVALID_TYPE');
  const { echo, filter } = parseToolFilter(value, param)!;
  return { echo, allowed: { names: filter.names, readOnly: filter.readOnly === true } };
}

function parseHeaders(value: JsonValue | undefined, param: string): Record<string, string> | null {
  if (isAbsent(value)) return null;
  if (!isPlainObject(value)) throw invalid(`${param} must be an object of header names to string values`, param, 'INVALID_TYPE');
  const entries = Object.entries(value);
  if (entries.length > maxHeaders) throw invalid(`${param} may hold at most ${maxHeaders} headers`, param);
  const headers: Record<string, string> = {};
  for (const [name, headerValue] of entries) {
    const path = `${param}.${name}`;
    if (!headerNamePattern.test(name)) throw invalid(`${param}: ${JSON.stringify(name)} is not a valid header name`, path);
    if (transportHeaders.has(name.toLowerCase())) throw invalid(`${param}: the ${name} header is set by the MCP transport and cannot be given`, path, 'UNSUPPORTED_VALUE');
    if (typeof headerValue !== 'string') throw invalid(`${path} must be a string`, path, 'INVALID_TYPE');
    if (headerValue.length > maxHeaderValueLength || /[\r\n\0]/.test(headerValue)) {
      throw invalid(`${path} must be at most ${maxHeaderValueLength} characters without line breaks`, path);
    }
    headers[name] = headerValue;
  }
  return headers;
}

/** One side of the filter form of `require_approval`: tools by name and/or by MCP's `readOnlyHint`. */
export interface ApprovalFilter {
  readonly names: ReadonlySet<string> | null;
  /** true: read-only tools match; false: tools not marked read-only match; null: not a criterion. */
  readonly readOnly: boolean | null;
}

/**
 * Which tools of a server need the client's approval before a call: `always` (also when unset, as the
 * reference API), `never`, or the filters: a tool the `always` filter matches needs approval, else one the
 * `never` filter matches does not, else it needs approval (the default).
 */
export type ApprovalPolicy = 'always' | 'never' | { readonly always: ApprovalFilter | null; readonly never: ApprovalFilter | null };

/** Whether a filter matches a tool: every criterion it gives holds (a filter with none matches no tool). */
function filterMatches(filter: ApprovalFilter | null, tool: McpToolInfo): boolean {
  if (filter === null || (filter.names === null && filter.readOnly === null)) return false;
  if (filter.names !== null && !filter.names.has(tool.name)) return false;
  return filter.readOnly === null || (tool.annotations?.readOnlyHint === true) === filter.readOnly;
}

/** True when a call to `tool` must wait for the client's approval under `policy`. */
export function needsApproval(policy: ApprovalPolicy, tool: McpToolInfo): boolean {
  if (policy === 'always' || policy === 'never') return policy === 'always';
  if (filterMatches(policy.always, tool)) return true;
  return !filterMatches(policy.never, tool);
}

/** A tool filter `{tool_names, read_only}` (of `allowed_tools` or `require_approval`); null when absent. */
function parseToolFilter(value: JsonValue | undefined, param: string): { echo: JsonObject; filter: ApprovalFilter } | null {
  if (isAbsent(value)) return null;
  if (!isPlainObject(value)) throw invalid(`${param} must be an object {tool_names, read_only}`, param, 'INVALID_TYPE');
  for (const key of Object.keys(value)) {
    if (key !== 'tool_names' && key !== 'read_only') throw invalid(`Unknown parameter: '${param}.${key}'.`, `${param}.${key}`, 'UNKNOWN_PARAMETER');
  }
  const names = isAbsent(value.tool_names) ? null : parseToolNames(value.tool_names, `${param}.tool_names`);
  const readOnly = value.read_only;
  if (!isAbsent(readOnly) && typeof readOnly !== 'boolean') throw invalid(`${param}.read_only must be a boolean`, `${param}.read_only`, 'INVALID_TYPE');
  const echo: JsonObject = {};
  if (names !== null) echo.tool_names = names;
  if (typeof readOnly === 'boolean') echo.read_only = readOnly;
  return { echo, filter: { names: names === null ? null : new Set(names), readOnly: typeof readOnly === 'boolean' ? readOnly : null } };
}

/**
 * `require_approval`: `"always"`, `"never"`, or `{always: {tool_names, read_only}, never: {…}}`; unset
 * (null) means `always`, as in the reference API. Echoed as given (null when unset).
 */
function parseRequireApproval(value: JsonValue | undefined, param: string): { echo: JsonValue; policy: ApprovalPolicy } {
  if (isAbsent(value)) return { echo: null, policy: 'always' };
  if (value === 'always' || value === 'never') return { echo: value, policy: value };
  if (typeof value === 'string') throw invalid(`${param} must be "always", "never" or {always, never} tool filters`, param, 'UNSUPPORTED_VALUE');
  if (!isPlainObject(value)) throw invalid(`${param} must be "always", "never" or {always, never} tool filters`, param, 'INVALID_TYPE');
  for (const key of Object.keys(value)) {
    if (key !== 'always' && key !== 'never') throw invalid(`Unknown parameter: '${param}.${key}'.`, `${param}.${key}`, 'UNKNOWN_PARAMETER');
  }
  const always = parseToolFilter(value.always, `${param}.always`);
  const never = parseToolFilter(value.never, `${param}.never`);
  const echo: JsonObject = {};
  if (always !== null) echo.always = always.echo;
  if (never !== null) echo.never = never.echo;
  return { echo, policy: { always: always?.filter ?? null, never: never?.filter ?? null } };
}
