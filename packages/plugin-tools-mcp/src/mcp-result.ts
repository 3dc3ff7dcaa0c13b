/**
 * A `tools/call` result as the text the model reads: the text of its content parts (other parts named
 * in brackets), or its structured content as JSON when it has no content. A result with `isError` is
 * the tool's error: the model reads it as such, the response goes on.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What a call gave: the tool's output, or an error (the tool's own, or the server's). */
export type ToolOutcome = { readonly output: string } | { readonly error: string };

type ContentBlock = CallToolResult['content'][number];

function partText(part: ContentBlock): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
      return `[image ${part.mimeType}]`;
    case 'audio':
      return `[audio ${part.mimeType}]`;
    case 'resource':
      return 'text' in part.resource && typeof part.resource.text === 'string' ? part.resource.text : `[resource ${part.resource.uri}]`;
    case 'resource_link':
      return `[resource ${part.uri}]`;
    default:
      return '';
  }
}

export function resultText(result: CallToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  if (content.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return content.map(partText).filter((text) => text.length > 0).join('\n');
}

export function resultOutcome(result: CallToolResult): ToolOutcome {
  const text = resultText(result);
  if (result.isError === true) return { error: text.length > 0 ? text : 'the tool reported an error without a message' };
  return { output: text };
}
