/**
 * The function name under which an MCP server's tool is offered to the model: `<server_label>__<tool>`,
 * so tools of two servers (and the client's function tools, checked when a session opens) cannot be
 * confused. Chat engines accept 1 to 64 letters, digits, underscores and hyphens: a tool name with other
 * characters, or a name that would be longer, gets a short hash of the original in its place, so the
 * name stays unique and the same in every turn and every later response of the conversation.
 */
import { createHash } from 'node:crypto';

const maxLength = 64;
const unsafe = /[^A-Za-z0-9_-]/g;

export function mcpFunctionName(serverLabel: string, toolName: string): string {
  const plain = `${serverLabel}__${toolName}`;
  const safe = plain.replace(unsafe, '_');
  if (safe === plain && safe.length <= maxLength) return safe;
  const hash = createHash('sha256').update(plain).digest('hex').slice(0, 8);
  return `${safe.slice(0, maxLength - hash.length - 1)}_${hash}`;
}
