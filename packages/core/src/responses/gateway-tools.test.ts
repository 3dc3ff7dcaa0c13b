import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../contracts/json.js';
import { isGatewayError } from '../errors/index.js';
import { chatToolChoice, toChatMessages } from './chat-translation.js';
import { mcpFunctionName } from './mcp-names.js';
import { ResponseEventWriter, type ResponseEventSink } from './response-events.js';
import { newResponsesId } from './response-ids.js';
import { parseResponseRequest } from './response-request.js';
import { EngineClient, callerContext, fixtureDeployment, fixtureModel } from './responses-fixtures.js';
import type {
  ConversationItem, FunctionCallItem, McpApprovalRequestItem, McpApprovalResponseItem, McpCallItem, McpListToolsItem, ResponseTool,
} from './response-types.js';
import { checkSessionNames, type ToolEventStream, type ToolSession } from './tool-provider.js';
import { TurnLoop } from './turn-loop.js';

const ctx = callerContext();
const target = { accountId: 'acme', model: fixtureModel, deployment: fixtureDeployment, facts: { contextLength: 8192, supportsImageInput: false } };

function collector(): ResponseEventSink & { events: JsonObject[]; types(): string[] } {
  const events: JsonObject[] = [];
  return { events, send: (event) => events.push(structuredClone(event)), ready: async () => {}, types: () => events.map((e) => String(e.type)) };
}

/**
 * A session like the MCP one: `dock__lookup` and `dock__search` offered, a tool list opening the output,
 * each call recorded as one `mcp_call` item, streamed with its own events.
 */
function dockSession(needApproval: ReadonlySet<string> = new Set()): ToolSession {
  const run = async (name: string, args: string, approvalRequestId: string | null, events?: ToolEventStream): Promise<ConversationItem[]> => {
    const item: McpCallItem = {
      type: 'mcp_call', id: newResponsesId('mcp'), server_label: 'dock', name, arguments: args,
      output: null, error: null, approval_request_id: approvalRequestId, status: 'in_progress',
    };
    const index = events ? events.itemAdded({ ...item }) : -1;
    await new Promise((resolve) => setTimeout(resolve, 2));
    item.output = `found ${item.name}`;
    item.status = 'completed';
    if (events) {
      events.itemEvent('response.mcp_call.completed', item, index);
      events.itemDone(index, item);
    }
    return [item];
  };
  const list: McpListToolsItem = { type: 'mcp_list_tools', id: newResponsesId('mcpl'), server_label: 'dock', tools: [], error: null };
  return {
    functions: [{ name: 'dock__lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }, { name: 'dock__search' }],
    items: [list],
    streamItems(events: ToolEventStream) {
      const index = events.itemAdded(list);
      events.itemEvent('response.mcp_list_tools.completed', list, index);
      events.itemDone(index, list);
    },
    handles: (name) => name.startsWith('dock__'),
    async execute(_ctx, call: FunctionCallItem, events?: ToolEventStream): Promise<ConversationItem[]> {
      const name = call.name.slice(6);
      if (!needApproval.has(name)) return run(name, call.arguments, null, events);
      const request: McpApprovalRequestItem = { type: 'mcp_approval_request', id: newResponsesId('mcpr'), server_label: 'dock', name, arguments: call.arguments };
      if (events) events.itemDone(events.itemAdded(request), request);
      return [request];
    },
    runApproved: async (_ctx, request, events) => run(request.name, request.arguments, request.id, events),
    close: async () => {},
  };
}

async function run(body: Record<string, unknown>, stream: boolean) {
  const request = parseResponseRequest({ model: fixtureModel, ...body });
  const client = new EngineClient();
  const sink = collector();
  const events = stream ? new ResponseEventWriter(sink) : undefined;
  const result = await new TurnLoop(client).run(ctx, { request, context: request.input, target, session: dockSession() }, events);
  return { result, sink, client };
}

describe('gateway-run tools in the turn loop', () => {
  it('streams a gateway call only as the items the session announces, at the output indexes of the final output', async () => {
    const { result, sink } = await run({ input: 'please dock__lookup' }, true);
    expect(result.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(sink.types()).not.toContain('response.function_call_arguments.delta');
    const done = sink.events.filter((event) => event.type === 'response.output_item.done');
    expect(done.map((event) => event.output_index)).toEqual([0, 1, 2]);
    expect(done.map((event) => event.item)).toEqual(result.output);
    const added = sink.events.filter((event) => event.type === 'response.output_item.added');
    expect(added.map((event) => (event.item as JsonObject).id)).toEqual(result.output.map((item) => item.id));
    expect(sink.events.find((event) => event.type === 'response.mcp_call.completed')).toMatchObject({ item_id: result.output[1]!.id, output_index: 1 });
  });

  it('puts what gateway calls gave after the client\'s calls of the same turn, streamed or not', async () => {
    const tools = [{ type: 'function', name: 'get_weather' }];
    for (const stream of [false, true]) {
      const { result, sink } = await run({ input: 'use dock__lookup and get_weather', tools }, stream);
      expect(result.status).toBe('completed');
      expect(result.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'function_call', 'mcp_call']);
      if (stream) {
        const done = sink.events.filter((event) => event.type === 'response.output_item.done');
        expect(done.map((event) => (event.item as JsonObject).id)).toEqual(result.output.map((item) => item.id));
      }
    }
  });

  it('sends the model an MCP call as a tool call under its offered name, with its output', async () => {
    const { result, client } = await run({ input: 'please dock__search' }, false);
    const call = result.output[1] as McpCallItem;
    expect(client.bodies[1]!.messages).toEqual([
      { role: 'user', content: 'please dock__search' },
      { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: 'dock__search', arguments: call.arguments } }] },
      { role: 'tool', tool_call_id: call.id, content: 'found search' },
    ]);
  });
});

describe('MCP items in chat messages', () => {
  const call = (id: string, extra: Partial<McpCallItem> = {}): McpCallItem => ({
    type: 'mcp_call', id, server_label: 'dock', name: 'lookup', arguments: '{}', output: 'ok', error: null, approval_request_id: null, status: 'completed', ...extra,
  });

  it('joins consecutive calls to the assistant message before them, their results after it; errors are read as such', () => {
    const messages = toChatMessages(null, [
      { type: 'message', id: 'm1', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'hi' }] },
      { type: 'mcp_list_tools', id: 'l1', server_label: 'dock', tools: [], error: null },
      { type: 'message', id: 'm2', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'let me look', annotations: [], logprobs: [] }] },
      call('c1'),
      call('c2', { output: null, error: 'gate closed', status: 'failed' }),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant', content: 'let me look', tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'dock__lookup', arguments: '{}' } },
          { id: 'c2', type: 'function', function: { name: 'dock__lookup', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      { role: 'tool', tool_call_id: 'c2', content: 'error: gate closed' },
    ]);
  });

  it('opens an assistant message for a call that follows a user message', () => {
    const messages = toChatMessages('be brief', [{ type: 'message', id: 'm1', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'hi' }] }, call('c1')]);
    expect(messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'dock__lookup', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ]);
  });

  it('names a tool choice of an MCP server\'s tool by its offered function', () => {
    expect(chatToolChoice({ type: 'mcp', server_label: 'dock', name: 'lookup' })).toEqual({ type: 'function', function: { name: 'dock__lookup' } });
    expect(chatToolChoice({ type: 'mcp', server_label: 'dock' })).toBe('required');
  });
});

describe('mcpFunctionName', () => {
  it('joins label and tool, and hashes names engines would refuse, keeping them distinct and stable', () => {
    expect(mcpFunctionName('dock', 'lookup')).toBe('dock__lookup');
    const dotted = mcpFunctionName('dock', 'files.read');
    expect(dotted).toMatch(/^dock__files_read_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(mcpFunctionName('dock', 'files_read'));
    expect(mcpFunctionName('dock', 'files.read')).toBe(dotted);
    const long = mcpFunctionName('a'.repeat(40), 'b'.repeat(40));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(long).not.toBe(mcpFunctionName('a'.repeat(40), `${'b'.repeat(39)}c`));
  });
});

describe('checkSessionNames', () => {
  it('refuses a function tool named like a gateway tool, naming it', () => {
    const tools: ResponseTool[] = [{ type: 'mcp', server_label: 'dock' }, { type: 'function', name: 'dock__lookup', description: null, parameters: null, strict: true }];
    let thrown: unknown;
    try {
      checkSessionNames(tools, dockSession());
    } catch (error) {
      thrown = error;
    }
    expect(isGatewayError(thrown) && thrown.field).toBe('tools[1].name');
    expect(() => checkSessionNames([{ type: 'function', name: 'other', description: null, parameters: null, strict: true }], dockSession())).not.toThrow();
  });
});

describe('MCP approvals in the turn loop', () => {
  const user = (text: string): ConversationItem => ({ type: 'message', id: newResponsesId('msg'), role: 'user', status: 'completed', content: [{ type: 'input_text', text }] });
  const request: McpApprovalRequestItem = { type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'dock', name: 'search', arguments: '{"q":"tide"}' };
  const answer = (approve: boolean, reason: string | null = null): McpApprovalResponseItem =>
    ({ type: 'mcp_approval_response', id: 'mcpa_1', approval_request_id: 'mcpr_1', approve, reason });

  async function runWith(context: ConversationItem[], session: ToolSession | undefined, stream = false) {
    const request = parseResponseRequest({ model: fixtureModel, input: 'x' });
    const client = new EngineClient();
    const sink = collector();
    const events = stream ? new ResponseEventWriter(sink) : undefined;
    const result = await new TurnLoop(client).run(ctx, { request, context, target, ...(session ? { session } : {}) }, events);
    return { result, client, sink };
  }

  it('ends the response completed with the approval request in place of the call, streamed as added and done', async () => {
    for (const stream of [false, true]) {
      const { result, client, sink } = await runWith([user('please dock__search')], dockSession(new Set(['search'])), stream);
      expect(result.status).toBe('completed');
      expect(result.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
      expect(client.bodies).toHaveLength(1);
      if (stream) {
        const approval = result.output[1]!;
        expect(sink.events.filter((event) => (event.item as JsonObject | undefined)?.type === 'mcp_approval_request').map((event) => [event.type, event.output_index]))
          .toEqual([['response.output_item.added', 1], ['response.output_item.done', 1]]);
        expect(sink.events.find((event) => event.type === 'response.output_item.done' && event.output_index === 1)!.item).toEqual(approval);
      }
    }
  });

  it('runs an approved call before the first turn and lets the model read its result', async () => {
    const { result, client } = await runWith([user('please dock__search'), request, answer(true)], dockSession(new Set(['search'])));
    expect(result.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const call = result.output[1] as McpCallItem;
    expect(call).toMatchObject({ name: 'search', arguments: '{"q":"tide"}', output: 'found search', approval_request_id: 'mcpr_1' });
    expect(client.bodies[0]!.messages).toEqual([
      { role: 'user', content: 'please dock__search' },
      { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: 'dock__search', arguments: '{"q":"tide"}' } }] },
      { role: 'tool', tool_call_id: call.id, content: 'found search' },
    ]);
  });

  it('tells the model a denied call was denied, as its result', async () => {
    const { result, client } = await runWith([user('please dock__search'), request, answer(false, 'too costly')], dockSession(new Set(['search'])));
    expect(result.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'message']);
    expect(client.bodies[0]!.messages).toEqual([
      { role: 'user', content: 'please dock__search' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'mcpr_1', type: 'function', function: { name: 'dock__search', arguments: '{"q":"tide"}' } }] },
      { role: 'tool', tool_call_id: 'mcpr_1', content: 'error: the user denied this tool call: too costly' },
    ]);
  });

  it('records an approved call no session offers as failed', async () => {
    const { result } = await runWith([user('please dock__search'), request, answer(true)], undefined);
    expect(result.output[0]).toMatchObject({ type: 'mcp_call', status: 'failed', approval_request_id: 'mcpr_1', error: expect.stringContaining('not offered') });
    expect(result.output.map((item) => item.type)).toEqual(['mcp_call', 'message']);
  });

  it('does not show the model a request left unanswered', () => {
    expect(toChatMessages(null, [user('hi'), request, user('never mind')])).toEqual([{ role: 'user', content: 'hi' }, { role: 'user', content: 'never mind' }]);
  });
});
