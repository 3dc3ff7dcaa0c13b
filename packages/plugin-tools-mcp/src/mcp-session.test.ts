import { describe, expect, it } from 'vitest';
import { systemContext, type ConversationItem, type FunctionCallItem, type JsonObject, type JsonValue, type McpToolInfo, type RequestContext, type ToolEventStream } from '@berth/core';
import type { McpConnector, McpServerConnection } from './mcp-connection.js';
import { cancelledError, filterAllowed } from './mcp-connection.js';
import { parseMcpDeclaration } from './mcp-declaration.js';
import { McpToolProvider } from './mcp-provider.js';
import type { ToolOutcome } from './mcp-result.js';
import { McpToolSession, parseArguments } from './mcp-session.js';

const ctx = systemContext('test');
const tool = (name: string, readOnly = false): McpToolInfo => ({
  name, description: `the ${name} tool`, input_schema: { type: 'object' }, annotations: readOnly ? { readOnlyHint: true } : null,
});

/** A server answering `add` with the sum, anything else with an error; records what it was asked. */
function fakeConnection(
  label: string, tools: McpToolInfo[], param = 'tools[0]', requireApproval: JsonValue = 'never',
): McpServerConnection & { asked: JsonObject[]; closed: number } {
  const { declaration } = parseMcpDeclaration({ type: 'mcp', server_label: label, server_url: 'https://mcp.example.com/mcp', require_approval: requireApproval }, param);
  const connection = {
    declaration, tools, asked: [] as JsonObject[], closed: 0,
    async call(callCtx: RequestContext, name: string, args: JsonObject): Promise<ToolOutcome> {
      connection.asked.push({ name, ...args });
      if (callCtx.signal?.aborted) throw cancelledError();
      return name === 'add' ? { output: String(Number(args.a) + Number(args.b)) } : { error: `${name} is broken` };
    },
    async close() {
      connection.closed += 1;
    },
  };
  return connection;
}

const call = (name: string, args: string): FunctionCallItem => ({ type: 'function_call', id: 'fc_1', call_id: 'call_1', name, arguments: args, status: 'completed' });

function recorder(): ToolEventStream & { events: JsonObject[] } {
  const events: JsonObject[] = [];
  let items = 0;
  return {
    events,
    itemAdded(item: ConversationItem) {
      events.push({ type: 'response.output_item.added', output_index: items, item: structuredClone(item) });
      return items++;
    },
    itemEvent(type, item, index, payload = {}) {
      events.push({ type, item_id: item.id, output_index: index, ...payload });
    },
    itemDone(index, item) {
      events.push({ type: 'response.output_item.done', output_index: index, item: structuredClone(item) });
    },
  };
}

describe('McpToolSession', () => {
  it('offers each server\'s tools under namespaced names and lists them first', () => {
    const session = new McpToolSession([fakeConnection('math', [tool('add'), tool('files.read')]), fakeConnection('docs', [tool('add')])]);
    expect(session.functions.map((fn) => fn.name)).toEqual(['math__add', expect.stringMatching(/^math__files_read_[0-9a-f]{8}$/), 'docs__add']);
    expect(session.functions[0]).toEqual({ name: 'math__add', description: 'the add tool', parameters: { type: 'object' } });
    expect(session.items.map((item) => [item.type, item.server_label, item.tools.length])).toEqual([['mcp_list_tools', 'math', 2], ['mcp_list_tools', 'docs', 1]]);
    expect(session.handles('docs__add')).toBe(true);
    expect(session.handles('add')).toBe(false);
  });

  it('runs a call and records output, or error, in one mcp_call item', async () => {
    const math = fakeConnection('math', [tool('add'), tool('divide')]);
    const session = new McpToolSession([math]);
    const [done] = await session.execute(ctx, call('math__add', '{"a":2,"b":3}'));
    expect(done).toMatchObject({ type: 'mcp_call', server_label: 'math', name: 'add', arguments: '{"a":2,"b":3}', output: '5', error: null, status: 'completed' });
    const [failed] = await session.execute(ctx, call('math__divide', '{}'));
    expect(failed).toMatchObject({ name: 'divide', output: null, error: 'divide is broken', status: 'failed' });
    const [garbled] = await session.execute(ctx, call('math__add', '{"a":'));
    expect(garbled).toMatchObject({ output: null, status: 'failed', error: expect.stringContaining('not a JSON object') });
    expect(math.asked).toEqual([{ name: 'add', a: 2, b: 3 }, { name: 'divide' }]);
  });

  it('streams the reference API\'s events for the tool list and each call', async () => {
    const session = new McpToolSession([fakeConnection('math', [tool('add')])]);
    const events = recorder();
    session.streamItems(events);
    const [item] = await session.execute(ctx, call('math__add', '{"a":1,"b":1}'), events);
    expect(events.events.map((event) => event.type)).toEqual([
      'response.output_item.added', 'response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed', 'response.output_item.done',
      'response.output_item.added', 'response.mcp_call_arguments.delta', 'response.mcp_call_arguments.done', 'response.mcp_call.in_progress',
      'response.mcp_call.completed', 'response.output_item.done',
    ]);
    expect(events.events[0]).toMatchObject({ output_index: 0, item: { type: 'mcp_list_tools', tools: [] } });
    expect(events.events[3]).toMatchObject({ output_index: 0, item: { type: 'mcp_list_tools', tools: [{ name: 'add' }] } });
    expect(events.events[4]).toMatchObject({ output_index: 1, item: { type: 'mcp_call', arguments: '', status: 'in_progress' } });
    expect(events.events[5]).toEqual({ type: 'response.mcp_call_arguments.delta', item_id: item!.id, output_index: 1, delta: '{"a":1,"b":1}' });
    expect(events.events[9]).toEqual({ type: 'response.output_item.done', output_index: 1, item });
  });

  it('sends mcp_call.failed for an error, and throws when the caller went away', async () => {
    const session = new McpToolSession([fakeConnection('math', [tool('divide'), tool('add')])]);
    const events = recorder();
    await session.execute(ctx, call('math__divide', '{}'), events);
    expect(events.events.map((event) => event.type)).toContain('response.mcp_call.failed');
    const controller = new AbortController();
    controller.abort();
    await expect(session.execute({ ...ctx, signal: controller.signal }, call('math__add', '{}'))).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('asks for approval instead of calling a tool that needs it, and runs the call once approved', async () => {
    const math = fakeConnection('math', [tool('add'), tool('peek', true)], 'tools[0]', { never: { read_only: true } });
    const session = new McpToolSession([math]);
    const events = recorder();
    const [request] = await session.execute(ctx, call('math__add', '{"a":2,"b":3}'), events);
    expect(request).toEqual({ type: 'mcp_approval_request', id: expect.stringMatching(/^mcpr_[0-9a-f]{32}$/), server_label: 'math', name: 'add', arguments: '{"a":2,"b":3}' });
    expect(events.events).toEqual([
      { type: 'response.output_item.added', output_index: 0, item: request },
      { type: 'response.output_item.done', output_index: 0, item: request },
    ]);
    expect(math.asked).toEqual([]);
    const [peeked] = await session.execute(ctx, call('math__peek', '{}'));
    expect(peeked).toMatchObject({ type: 'mcp_call', name: 'peek', approval_request_id: null });
    if (request?.type !== 'mcp_approval_request') throw new Error('expected an approval request');
    const [approved] = await session.runApproved(ctx, request, events) ?? [];
    expect(approved).toMatchObject({ type: 'mcp_call', name: 'add', output: '5', status: 'completed', approval_request_id: request.id });
    expect(events.events.slice(2).map((event) => event.type)).toEqual([
      'response.output_item.added', 'response.mcp_call_arguments.delta', 'response.mcp_call_arguments.done', 'response.mcp_call.in_progress',
      'response.mcp_call.completed', 'response.output_item.done',
    ]);
    expect(await session.runApproved(ctx, { ...request, name: 'gone' })).toBeUndefined();
    expect(await session.runApproved(ctx, { ...request, server_label: 'other' })).toBeUndefined();
    expect(math.asked).toEqual([{ name: 'peek' }, { name: 'add', a: 2, b: 3 }]);
  });

  it('closes every connection', async () => {
    const a = fakeConnection('a', []);
    const b = fakeConnection('b', []);
    await new McpToolSession([a, b]).close();
    expect([a.closed, b.closed]).toEqual([1, 1]);
  });
});

describe('McpToolProvider', () => {
  function connector(failing: string | null = null): McpConnector & { opened: Array<McpServerConnection & { closed: number }> } {
    const opened: Array<McpServerConnection & { closed: number }> = [];
    return {
      opened,
      async connect(_ctx, declaration) {
        if (declaration.label === failing) throw new Error(`${failing} is down`);
        const connection = fakeConnection(declaration.label, [tool('add')], declaration.param);
        opened.push(connection);
        return connection;
      },
    };
  }

  it('opens a session over every declared server', async () => {
    const provider = new McpToolProvider(connector());
    const tools = [provider.normalize({ type: 'mcp', server_label: 'a', server_url: 'https://a.example.com/mcp' }, 'tools[0]'),
      provider.normalize({ type: 'sse', server_url: 'https://b.example.com/sse' }, 'tools[1]')];
    const session = await provider.open(ctx, tools);
    expect(session.functions.map((fn) => fn.name)).toEqual(['a__add', 'sse_b_example_com__add']);
  });

  it('refuses two servers with one label, and closes what opened when a server fails', async () => {
    const provider = new McpToolProvider(connector());
    const twice = [0, 1].map((i) => provider.normalize({ type: 'mcp', server_label: 'a', server_url: 'https://a.example.com/mcp' }, `tools[${i}]`));
    await expect(provider.open(ctx, twice)).rejects.toMatchObject({ field: 'tools[1].server_label' });
    const failing = connector('b');
    const partial = new McpToolProvider(failing);
    const tools = ['a', 'b'].map((label, i) => partial.normalize({ type: 'mcp', server_label: label, server_url: 'https://a.example.com/mcp' }, `tools[${i}]`));
    await expect(partial.open(ctx, tools)).rejects.toThrow('b is down');
    expect(failing.opened.map((connection) => connection.closed)).toEqual([1]);
  });
});

describe('helpers', () => {
  it('reads the model\'s arguments as a JSON object', () => {
    expect(parseArguments('')).toEqual({});
    expect(parseArguments('{"a":1}')).toEqual({ a: 1 });
    expect(parseArguments('[1]')).toBeUndefined();
    expect(parseArguments('{')).toBeUndefined();
  });

  it('filters tools by name and read-only hint', () => {
    const tools = [tool('a'), tool('b', true), tool('c', true)];
    expect(filterAllowed(tools, { names: null, readOnly: false }).map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(filterAllowed(tools, { names: new Set(['a', 'b']), readOnly: false }).map((t) => t.name)).toEqual(['a', 'b']);
    expect(filterAllowed(tools, { names: new Set(['a', 'b']), readOnly: true }).map((t) => t.name)).toEqual(['b']);
  });
});
