import { unimplemented, type JsonSchema } from '@berth/core';
import type { RouteSpec } from '../route-spec.js';
import { responsesPath } from './responses-routes.js';

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const item: JsonSchema = {
  type: 'object',
  description: 'A conversation item: message, function_call, function_call_output, reasoning, compaction, mcp_list_tools, mcp_call, mcp_approval_request or mcp_approval_response.',
  required: ['type', 'id'],
  properties: { type: { type: 'string' }, id: { type: 'string' }, status: { type: 'string' }, encrypted_content: { type: 'string', description: 'compaction items: the summary, opaque.' } },
};
const listOf = (items: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['object', 'data', 'has_more', 'first_id', 'last_id'],
  properties: {
    object: { type: 'string', const: 'list' },
    data: { type: 'array', items },
    has_more: { type: 'boolean' },
    first_id: nullable({ type: 'string' }),
    last_id: nullable({ type: 'string' }),
  },
});

const settings: Record<string, JsonSchema> = {
  instructions: nullable({ type: 'string' }),
  max_output_tokens: nullable({ type: 'integer', minimum: 1 }),
  max_tool_calls: nullable({ type: 'integer', minimum: 1 }),
  metadata: nullable({ type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 512 } }),
  parallel_tool_calls: nullable({ type: 'boolean', default: true }),
  reasoning: nullable({ type: 'object', properties: { effort: nullable({ type: 'string' }), summary: nullable({ type: 'string' }) } }),
  store: nullable({ type: 'boolean', default: true }),
  temperature: nullable({ type: 'number', minimum: 0, maximum: 2, default: 1 }),
  text: nullable({ type: 'object', properties: { format: { type: 'object' }, verbosity: nullable({ type: 'string' }) } }),
  tool_choice: { description: 'none, auto (default), required, or {type: "function", name}.' },
  tools: nullable({
    type: 'array',
    description: 'Function tools; with the MCP plugin (@berth/plugin-tools-mcp) also mcp / sse servers the gateway calls ({server_url, server_label, allowed_tools, headers, require_approval}).',
    items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } },
  }),
  top_p: nullable({ type: 'number', minimum: 0, maximum: 1, default: 1 }),
  truncation: nullable({ type: 'string', enum: ['auto', 'disabled'], default: 'disabled' }),
  user: nullable({ type: 'string' }),
};

const usageSchema: JsonSchema = {
  type: 'object',
  properties: {
    prompt_tokens: { type: 'integer' }, completion_tokens: { type: 'integer' }, total_tokens: { type: 'integer' },
    input_tokens: { type: 'integer' }, output_tokens: { type: 'integer' },
    input_tokens_details: { type: 'object' }, output_tokens_details: { type: 'object' },
  },
};

const responseSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'created_at', 'status', 'model', 'output', 'usage'],
  properties: {
    id: nullable({ type: 'string', description: '`resp_` and 32 hex characters; null when store is false.' }),
    object: { type: 'string', const: 'response' },
    created_at: { type: 'integer' },
    completed_at: nullable({ type: 'integer' }),
    status: { type: 'string', enum: ['completed', 'incomplete', 'failed', 'in_progress', 'cancelled', 'queued'] },
    error: nullable({ type: 'object', properties: { type: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } } }),
    incomplete_details: nullable({ type: 'object', properties: { reason: { type: 'string', enum: ['max_output_tokens', 'max_tool_calls', 'content_filter'] } } }),
    model: { type: 'string' },
    output: { type: 'array', items: item },
    previous_response_id: nullable({ type: 'string' }),
    usage: usageSchema,
    ...settings,
    background: { type: 'boolean' },
    service_tier: { type: 'string' },
    presence_penalty: { type: 'number' },
    frequency_penalty: { type: 'number' },
    top_logprobs: { type: 'integer' },
    safety_identifier: nullable({ type: 'string' }),
    prompt_cache_key: nullable({ type: 'string' }),
  },
};

const listQuery = [
  { name: 'limit', type: 'integer', description: 'Items per page, 1 to 100 (larger values are lowered to 100); default 20.' },
  { name: 'after', type: 'string', description: 'Items after this id (in list order).' },
  { name: 'before', type: 'string', description: 'Items before this id (in list order).' },
] as const;

/** The `handle` of an inference route spec that only documents: the inference routes serve it (with the raw reply). */
export const documentedOnly = async (): Promise<never> => {
  throw unimplemented('served by the inference routes');
};

/** OpenAPI descriptions of the Responses API routes (documentation only: `registerResponsesRoutes` serves them). */
export function responsesRouteSpecs(): RouteSpec[] {
  const byId = `${responsesPath}/{response_id}`;
  return [
    {
      method: 'POST', path: responsesPath, tag: 'Inference', operationId: 'createResponse',
      summary: 'Create a model response: one or more model turns, function tools, stored conversations (previous_response_id)',
      requestBody: {
        type: 'object',
        required: ['model', 'input'],
        properties: {
          model: { type: 'string', description: 'accounts/<account_id>/models/<model_id>; served by its default deployment.' },
          input: { description: 'A string, or a list of input items (messages with input_text/input_image, function_call_output, …).' },
          previous_response_id: nullable({ type: 'string' }),
          stream: nullable({ type: 'boolean', description: 'true answers text/event-stream: response.created … response.completed (or incomplete/failed), each event with a sequence_number.' }),
          background: nullable({
            type: 'boolean',
            description: 'true answers at once with the stored response `queued`; the queue workers run it (poll GET, stop with POST …/cancel). Needs store true; not with stream true.',
          }),
          ...settings,
        },
      },
      response: responseSchema,
      handle: documentedOnly,
    },
    { method: 'GET', path: responsesPath, tag: 'Inference', operationId: 'listResponses', summary: "The caller's stored responses, newest first", query: listQuery, response: listOf(responseSchema), handle: documentedOnly },
    { method: 'GET', path: byId, tag: 'Inference', operationId: 'getResponse', summary: 'Retrieve a stored response', response: responseSchema, schemaNames: { response: 'Response' }, handle: documentedOnly },
    {
      method: 'DELETE', path: byId, tag: 'Inference', operationId: 'deleteResponse', summary: 'Delete a stored response',
      response: { type: 'object', properties: { message: { type: 'string', const: 'Response deleted successfully' } } },
      handle: documentedOnly,
    },
    {
      method: 'POST', path: `${byId}/cancel`, tag: 'Inference', operationId: 'cancelResponse',
      summary: 'Cancel a background response that is queued or in progress (a terminal one is answered unchanged; a response not created with background true is 400)',
      response: responseSchema,
      handle: documentedOnly,
    },
    {
      method: 'GET', path: `${byId}/input_items`, tag: 'Inference', operationId: 'listResponseInputItems',
      summary: 'The items a stored response was created from (earlier conversation and its input)',
      query: [...listQuery, { name: 'order', type: 'string', description: 'asc or desc (default).' }],
      response: listOf(item),
      handle: documentedOnly,
    },
    {
      method: 'POST', path: `${responsesPath}/compact`, tag: 'Inference', operationId: 'compactResponse',
      summary: "Compact a conversation: its user messages and one compaction item holding the model's summary of it (nothing is stored)",
      requestBody: {
        type: 'object',
        required: ['model'],
        properties: {
          model: { type: 'string', description: 'accounts/<account_id>/models/<model_id>: the model that writes the summary.' },
          input: { description: 'A string or a list of input items (compaction items of an earlier compaction included); required unless previous_response_id is given.' },
          previous_response_id: nullable({ type: 'string', description: 'A stored response: its conversation and output come first.' }),
          instructions: nullable({ type: 'string', description: 'A system message for the summarising turn.' }),
          prompt_cache_key: nullable({ type: 'string', description: 'Accepted, no effect.' }),
        },
      },
      response: {
        type: 'object',
        required: ['id', 'object', 'created_at', 'output', 'usage'],
        properties: {
          id: { type: 'string', description: '`resp_` and 32 hex characters; not stored.' },
          object: { type: 'string', const: 'response.compaction' },
          created_at: { type: 'integer' },
          output: { type: 'array', items: item, description: 'The user messages of the conversation, then one compaction item: send them as the input of the next response.' },
          usage: usageSchema,
        },
      },
      handle: documentedOnly,
    },
  ];
}
