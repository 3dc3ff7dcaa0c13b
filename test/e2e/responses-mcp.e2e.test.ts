import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { definePlugin, notFound, queueWorkers, servingDirectoryToken, startReferenceEngine, type ReferenceEngine, type ServingDirectory } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { mcpTools } from '@berth/plugin-tools-mcp';
import { account, adminKey, startHarness, type Harness } from './harness.js';
import { rejection } from './openai-rejection.js';
import { startMcpTestServer, type McpTestServer } from './fixtures/mcp-test-server.js';

/**
 * MCP tools run by the gateway, with the official `openai` client: a gateway with `mcpTools()` and
 * loopback URLs allowed, an MCP server written with @modelcontextprotocol/sdk (streamable HTTP and SSE),
 * and the reference engine behind a recording proxy (to see what the model was sent). The reference
 * engine calls the tools the last user message names, and answers in text after a tool result.
 */
const model = `accounts/${account}/models/tool-user`;
let h: Harness;
let refusing: Harness;
let engine: ReferenceEngine;
let proxy: { url: string; bodies: Array<Record<string, unknown>>; close(): Promise<void> };
let mcp: McpTestServer;
let client: OpenAI;

/** Forwards to the engine and keeps each request body. */
async function startRecordingProxy(target: string): Promise<typeof proxy> {
  const bodies: Array<Record<string, unknown>> = [];
  const server: HttpServer = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      if (body.length > 0) bodies.push(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
      const upstream = await fetch(`${target}${request.url ?? '/'}`, {
        method: request.method ?? 'GET', headers: { 'content-type': 'application/json' }, ...(body.length > 0 ? { body } : {}),
      });
      response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      if (upstream.body) for await (const chunk of upstream.body) response.write(chunk);
      response.end();
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function directoryPlugin() {
  const directory: ServingDirectory = {
    async resolve(_ctx, name) {
      if (name !== model) throw notFound(name);
      return { accountId: account, model: name, deployment: `accounts/${account}/deployments/d` };
    },
    async acquire(_ctx, target) {
      return { replicaId: 'r1', deployment: target.deployment, servedModelId: 'reference-model', endpoint: proxy.url, release: () => undefined };
    },
  };
  return definePlugin({ id: 'mcp-directory', register: (binder) => binder.bindValue(servingDirectoryToken, directory, { override: true }) });
}

const plugins = () => [memoryStorage(), queueWorkers({ pollIntervalMs: 20 }), apiKeyAuth({ cacheTtlMs: 0 }), directoryPlugin(), mcpTools({ callTimeoutMs: 10_000 })];

beforeAll(async () => {
  engine = await startReferenceEngine({ modelIds: ['reference-model'] });
  proxy = await startRecordingProxy(engine.url);
  mcp = await startMcpTestServer();
  h = await startHarness({ plugins: plugins(), config: { allowLoopbackUrls: true } });
  refusing = await startHarness({ plugins: plugins() });
  client = new OpenAI({ apiKey: adminKey, baseURL: `${h.url}/inference/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await h?.close();
  await refusing?.close();
  await mcp?.close();
  await proxy?.close();
  await engine?.close();
});

type McpTool = OpenAI.Responses.Tool.Mcp;
const harbor = (extra: Partial<McpTool> = {}): McpTool => ({ type: 'mcp', server_label: 'harbor', server_url: `${mcp.url}/mcp`, require_approval: 'never', ...extra });

/** The chat messages of the last request the model received. */
function lastMessages(): Array<{ role: string; content?: string | null; tool_calls?: Array<{ id: string; function: { name: string } }>; tool_call_id?: string }> {
  return proxy.bodies.at(-1)!.messages as never;
}

describe('MCP tools run by the gateway', () => {
  it('lists the tools, calls one, feeds the result to the model, which answers (streamable HTTP)', async () => {
    const calls = mcp.calls.length;
    const response = await client.responses.create({
      model, input: 'Please use harbor__add', tools: [harbor({ headers: { 'x-harbor-key': 'k1' } })],
    });
    expect(response.status).toBe('completed');
    expect(response.tools).toEqual([{
      type: 'mcp', server_label: 'harbor', server_url: `${mcp.url}/mcp`, allowed_tools: null, headers: { 'x-harbor-key': 'k1' }, require_approval: 'never',
    }]);
    expect(response.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const list = response.output[0] as OpenAI.Responses.ResponseOutputItem.McpListTools;
    expect(list).toMatchObject({ server_label: 'harbor', error: null, id: expect.stringMatching(/^mcpl_[0-9a-f]{32}$/) });
    expect(list.tools.map((tool) => tool.name)).toEqual(['add', 'lookup', 'fail', 'left', 'right', 'crash', 'slow']);
    expect(list.tools[0]).toMatchObject({ name: 'add', description: 'Adds two numbers', input_schema: { type: 'object', required: ['a', 'b'] } });
    const call = response.output[1] as OpenAI.Responses.ResponseOutputItem.McpCall;
    const args = JSON.parse(call.arguments) as { a: number; b: number };
    expect(call).toMatchObject({ server_label: 'harbor', name: 'add', error: null, output: String(args.a + args.b), id: expect.stringMatching(/^mcp_[0-9a-f]{32}$/) });
    expect(mcp.calls.slice(calls)).toEqual([{ name: 'add', arguments: args }]);
    expect(mcp.headers.at(-1)!['x-harbor-key']).toBe('k1');
    // The model's second turn read the tool's result as a tool message answering its call.
    const messages = lastMessages();
    expect(messages.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: call.id, function: { name: 'harbor__add' } }] });
    expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: call.id, content: String(args.a + args.b) });
    expect(response.output_text.length).toBeGreaterThan(0);

    // The conversation goes on from the stored response: the call stays in what the model reads.
    const next = await client.responses.create({ model, input: 'Thanks', previous_response_id: response.id });
    expect(next.status).toBe('completed');
    expect(lastMessages().some((m) => m.role === 'tool' && m.tool_call_id === call.id)).toBe(true);
  });

  it('runs the tools over the SSE transport too', async () => {
    const response = await client.responses.create({
      model, input: 'Please use harbor__lookup', tools: [{ type: 'sse', server_url: `${mcp.url}/sse`, server_label: 'harbor', require_approval: 'never' } as unknown as McpTool],
    });
    expect(response.tools[0]).toEqual({ type: 'sse', server_label: 'harbor', server_url: `${mcp.url}/sse`, allowed_tools: null, headers: null, require_approval: 'never' });
    expect(response.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(response.output[1]).toMatchObject({ type: 'mcp_call', name: 'lookup', output: expect.stringMatching(/^Weather in .+: sunny$/), error: null });
  });

  it('offers only the allowed tools', async () => {
    const response = await client.responses.create({
      model, input: 'Please use harbor__add and harbor__lookup', tools: [harbor({ allowed_tools: ['lookup'] })],
    });
    expect((response.output[0] as OpenAI.Responses.ResponseOutputItem.McpListTools).tools.map((tool) => tool.name)).toEqual(['lookup']);
    expect(response.output.filter((item) => item.type === 'mcp_call').map((item) => (item as { name: string }).name)).toEqual(['lookup']);
    expect((proxy.bodies.at(-2)!.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)).toEqual(['harbor__lookup']);

    const readOnly = await client.responses.create({
      model, input: 'Hello', tools: [harbor({ allowed_tools: { read_only: true } })],
    });
    expect((readOnly.output[0] as OpenAI.Responses.ResponseOutputItem.McpListTools).tools.map((tool) => tool.name)).toEqual(['lookup']);
    expect(readOnly.tools[0]).toMatchObject({ allowed_tools: { read_only: true } });

    // A tool choice naming the server's tool forces it (every turn, so max_tool_calls ends the loop).
    const forcedBody = { model, input: 'Hello', tools: [harbor()], tool_choice: { type: 'mcp', server_label: 'harbor', name: 'lookup' }, max_tool_calls: 1 };
    const forced = await client.responses.create(forcedBody as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(forced.output.map((item) => [item.type, (item as { name?: string }).name])).toEqual([['mcp_list_tools', undefined], ['mcp_call', 'lookup']]);
    expect(proxy.bodies.at(-1)!.tool_choice).toEqual({ type: 'function', function: { name: 'harbor__lookup' } });
  });

  it('continues a conversation that replays MCP items in input (store: false)', async () => {
    const first = await client.responses.create({ model, input: 'Please use harbor__add', tools: [harbor()], store: false });
    expect(first.id).toBeNull();
    const replay = [{ role: 'user' as const, content: 'Please use harbor__add' }, ...first.output, { role: 'user' as const, content: 'Thanks' }];
    const next = await client.responses.create({ model, input: replay as OpenAI.Responses.ResponseInput, store: false });
    expect(next.status).toBe('completed');
    const call = first.output[1] as OpenAI.Responses.ResponseOutputItem.McpCall;
    expect(lastMessages().find((m) => m.role === 'tool')).toEqual({ role: 'tool', tool_call_id: call.id, content: call.output });
  });

  it('gives the model a failing tool\'s error and a cut connection as tool output, not a failed response', async () => {
    const response = await client.responses.create({ model, input: 'Please use harbor__fail', tools: [harbor()] });
    expect(response.status).toBe('completed');
    const call = response.output[1] as OpenAI.Responses.ResponseOutputItem.McpCall;
    expect(call).toMatchObject({ type: 'mcp_call', name: 'fail', output: null, error: 'the harbor gate is closed' });
    expect(lastMessages().at(-1)).toEqual({ role: 'tool', tool_call_id: call.id, content: 'error: the harbor gate is closed' });
    expect(response.output[2]).toMatchObject({ type: 'message' });

    const crashed = await client.responses.create({ model, input: 'Please use harbor__crash', tools: [harbor()] });
    expect(crashed.status).toBe('completed');
    expect(crashed.output[1]).toMatchObject({ type: 'mcp_call', name: 'crash', output: null, error: expect.stringContaining('the MCP server harbor failed the call') });
    expect(crashed.output[2]).toMatchObject({ type: 'message' });
  });

  it('runs the calls of one turn side by side when parallel_tool_calls, and stops at max_tool_calls', async () => {
    const both = await client.responses.create({ model, input: 'Please use harbor__left and harbor__right', tools: [harbor()] });
    const outputs = both.output.filter((item) => item.type === 'mcp_call').map((item) => (item as { output: string | null }).output);
    expect(outputs).toEqual(['left met right', 'right met left']);

    // max_tool_calls is an API field the client's types leave out.
    const body = { model, input: 'Please use harbor__add and harbor__lookup', tools: [harbor()], max_tool_calls: 1 };
    const limited = await client.responses.create(body as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(limited.status).toBe('incomplete');
    expect(limited.incomplete_details).toEqual({ reason: 'max_tool_calls' });
    expect(limited.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call']);
  });

  it('streams the MCP events in order with the stream helper', async () => {
    const stream = client.responses.stream({ model, input: 'Please use harbor__add', tools: [harbor()] });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((event) => event.type).filter((type) => type !== 'response.output_text.delta');
    expect(types).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed', 'response.output_item.done',
      'response.output_item.added', 'response.mcp_call_arguments.delta', 'response.mcp_call_arguments.done', 'response.mcp_call.in_progress',
      'response.mcp_call.completed', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.completed',
    ]);
    const done = events.filter((event): event is OpenAI.Responses.ResponseOutputItemDoneEvent => event.type === 'response.output_item.done');
    expect(done.map((event) => event.output_index)).toEqual([0, 1, 2]);
    expect(final.output[1]).toMatchObject({ type: 'mcp_call', name: 'add', error: null });
    expect(final.output.map((item) => item.id)).toEqual(done.map((event) => event.item.id));
    const stored = await client.responses.retrieve(final.id);
    expect(done.map((event) => event.item)).toEqual(stored.output);
  });

  it('aborts a running tool call when the client goes away', async () => {
    const started = mcp.abandoned.started;
    const abandoned = mcp.abandoned.count;
    const controller = new AbortController();
    const stream = await client.responses.create({ model, input: 'Please use harbor__slow', tools: [harbor()], stream: true }, { signal: controller.signal });
    const seen: string[] = [];
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === 'response.mcp_call.in_progress') {
        controller.abort();
        break;
      }
    }
    expect(seen.at(-1)).toBe('response.mcp_call.in_progress');
    const until = Date.now() + 5000;
    while (mcp.abandoned.count === abandoned && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(mcp.abandoned.started).toBe(started + 1);
    expect(mcp.abandoned.count).toBe(abandoned + 1);
  });

  it('runs MCP tools in a background response, and fails it when the server cannot be listed', async () => {
    const poll = async (id: string): Promise<OpenAI.Responses.Response> => {
      const until = Date.now() + 10_000;
      for (;;) {
        const response = await client.responses.retrieve(id);
        if (response.status !== 'queued' && response.status !== 'in_progress') return response;
        if (Date.now() > until) throw new Error(`background response ${id} stayed ${response.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const queued = await client.responses.create({ model, input: 'Please use harbor__add', tools: [harbor()], background: true });
    expect(queued).toMatchObject({ status: 'queued', background: true, output: [] });
    const done = await poll(queued.id);
    expect(done.status).toBe('completed');
    expect(done.output_text.length).toBeGreaterThan(0);
    expect(done.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(done.output[1]).toMatchObject({ name: 'add', error: null, output: expect.stringMatching(/^-?\d/) });

    const closed = await startMcpTestServer();
    await closed.close();
    const unreachable = await client.responses.create({ model, input: 'x', tools: [harbor({ server_url: `${closed.url}/mcp` })], background: true });
    const failed = await poll(unreachable.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'mcp_list_tools_failed' });
  });

  it('refuses what it cannot run with a 400 naming the declaration', async () => {
    const loopback = await rejection(() => new OpenAI({ apiKey: adminKey, baseURL: `${refusing.url}/inference/v1`, maxRetries: 0 }).responses.create({
      model, input: 'Please use harbor__add', tools: [harbor()],
    }));
    expect(loopback.status).toBe(400);
    expect(loopback.param).toBe('tools[0].server_url');
    expect(loopback.message).toMatch(/loopback/);

    const closed = await startMcpTestServer();
    await closed.close();
    const unreachable = await rejection(() => client.responses.create({ model, input: 'x', tools: [harbor({ server_url: `${closed.url}/mcp` })] }));
    expect(unreachable.status).toBe(400);
    expect(unreachable.code).toBe('mcp_list_tools_failed');
    expect(unreachable.message).toContain('could not list the tools of MCP server harbor');

    const approval = await rejection(() => client.responses.create({ model, input: 'x', tools: [harbor({ require_approval: 'sometimes' as 'never' })] }));
    expect(approval).toMatchObject({ status: 400, param: 'tools[0].require_approval', code: 'unsupported_value' });
    const filter = await rejection(() => client.responses.create({
      model, input: 'x', tools: [harbor({ require_approval: { never: { tool_names: 'add' as unknown as string[] } } })],
    }));
    expect(filter).toMatchObject({ status: 400, param: 'tools[0].require_approval.never.tool_names', code: 'invalid_type' });
    const ftp = await rejection(() => client.responses.create({ model, input: 'x', tools: [harbor({ server_url: 'ftp://example.com/mcp' })] }));
    expect(ftp).toMatchObject({ status: 400, param: 'tools[0].server_url' });
    const clash = await rejection(() => client.responses.create({
      model, input: 'x', tools: [harbor(), { type: 'function', name: 'harbor__add', parameters: {}, strict: false }],
    }));
    expect(clash).toMatchObject({ status: 400, param: 'tools[1].name' });
  });
});

describe('MCP approvals (require_approval)', () => {
  type ApprovalRequest = OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
  type McpCall = OpenAI.Responses.ResponseOutputItem.McpCall;
  const approval = (id: string, approve: boolean, reason?: string): OpenAI.Responses.ResponseInputItem.McpApprovalResponse =>
    ({ type: 'mcp_approval_response', approval_request_id: id, approve, ...(reason !== undefined ? { reason } : {}) });

  it('asks before calling when require_approval is unset, and calls the tool once approved', async () => {
    const calls = mcp.calls.length;
    const tools = [harbor({ require_approval: undefined })];
    const asked = await client.responses.create({ model, input: 'Please use harbor__add', tools });
    expect(asked.status).toBe('completed');
    expect(asked.tools[0]).toMatchObject({ require_approval: null });
    expect(asked.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    const request = asked.output[1] as ApprovalRequest;
    expect(request).toEqual({ type: 'mcp_approval_request', id: expect.stringMatching(/^mcpr_[0-9a-f]{32}$/), server_label: 'harbor', name: 'add', arguments: expect.any(String) });
    expect(mcp.calls.length).toBe(calls);

    const approved = await client.responses.create({ model, previous_response_id: asked.id, input: [approval(request.id, true)], tools });
    expect(approved.status).toBe('completed');
    expect(approved.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const call = approved.output[1] as McpCall;
    const args = JSON.parse(request.arguments) as { a: number; b: number };
    expect(call).toMatchObject({ name: 'add', arguments: request.arguments, output: String(args.a + args.b), error: null, approval_request_id: request.id });
    expect(mcp.calls.slice(calls)).toEqual([{ name: 'add', arguments: args }]);
    expect(lastMessages().at(-1)).toEqual({ role: 'tool', tool_call_id: call.id, content: String(args.a + args.b) });
    expect(approved.output_text.length).toBeGreaterThan(0);

    // An approval already answered (and run) is refused, as is one naming no request of the conversation.
    const again = await rejection(() => client.responses.create({ model, previous_response_id: approved.id, input: [approval(request.id, true)], tools }));
    expect(again).toMatchObject({ status: 400, param: 'input[0].approval_request_id' });
    expect(again.message).toContain('already answered');
    const unknown = await rejection(() => client.responses.create({ model, previous_response_id: asked.id, input: [approval('mcpr_nope', true)], tools }));
    expect(unknown).toMatchObject({ status: 400, param: 'input[0].approval_request_id' });
    const alone = await rejection(() => client.responses.create({ model, input: [approval(request.id, false)], tools }));
    expect(alone).toMatchObject({ status: 400, param: 'input[0].approval_request_id' });
    expect(mcp.calls.length).toBe(calls + 1);
  });

  it('runs the tools the never filter names, asks for the others, and tells the model a denied call was denied', async () => {
    const calls = mcp.calls.length;
    const tools = [harbor({ require_approval: { never: { tool_names: ['lookup'] } } })];
    const asked = await client.responses.create({ model, input: 'Please use harbor__add and harbor__lookup', tools });
    expect(asked.tools[0]).toMatchObject({ require_approval: { never: { tool_names: ['lookup'] } } });
    const kinds = asked.output.map((item) => [item.type, (item as { name?: string }).name]);
    expect(kinds).toEqual(expect.arrayContaining([['mcp_call', 'lookup'], ['mcp_approval_request', 'add']]));
    expect(asked.output).toHaveLength(3);
    expect(mcp.calls.slice(calls).map((c) => c.name)).toEqual(['lookup']);
    const request = asked.output.find((item) => item.type === 'mcp_approval_request') as ApprovalRequest;

    const denied = await client.responses.create({ model, previous_response_id: asked.id, input: [approval(request.id, false, 'not now')], tools });
    expect(denied.status).toBe('completed');
    expect(denied.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'message']);
    expect(lastMessages().find((m) => m.role === 'tool' && m.tool_call_id === request.id)).toEqual({
      role: 'tool', tool_call_id: request.id, content: 'error: the user denied this tool call: not now',
    });
    expect(mcp.calls.slice(calls).map((c) => c.name)).toEqual(['lookup']);
    const twice = await rejection(() => client.responses.create({ model, previous_response_id: denied.id, input: [approval(request.id, true)], tools }));
    expect(twice).toMatchObject({ status: 400, param: 'input[0].approval_request_id' });
  });

  it('streams the approval request as added and done, then the approved call\'s events', async () => {
    const tools = [harbor({ require_approval: 'always' })];
    const stream = client.responses.stream({ model, input: 'Please use harbor__add', tools });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(events.map((event) => event.type)).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed', 'response.output_item.done',
      'response.output_item.added', 'response.output_item.done',
      'response.completed',
    ]);
    const done = events[7] as OpenAI.Responses.ResponseOutputItemDoneEvent;
    expect(done).toMatchObject({ output_index: 1, item: { type: 'mcp_approval_request', name: 'add', server_label: 'harbor' } });
    expect(final.output[1]).toEqual(done.item);
    expect((await client.responses.retrieve(final.id)).output[1]).toEqual(done.item);

    const next = client.responses.stream({ model, previous_response_id: final.id, input: [approval(done.item.id!, true)], tools });
    const types: string[] = [];
    for await (const event of next) types.push(event.type);
    expect(types.filter((type) => type.startsWith('response.mcp_call'))).toEqual([
      'response.mcp_call_arguments.delta', 'response.mcp_call_arguments.done', 'response.mcp_call.in_progress', 'response.mcp_call.completed',
    ]);
    expect((await next.finalResponse()).output[1]).toMatchObject({ type: 'mcp_call', approval_request_id: done.item.id, error: null });
  });

  it('continues from approval items replayed in input (store: false)', async () => {
    const tools = [harbor({ require_approval: 'always' })];
    const first = await client.responses.create({ model, input: 'Please use harbor__lookup', tools, store: false });
    const request = first.output[1] as ApprovalRequest;
    expect(request.type).toBe('mcp_approval_request');
    const replay = [{ role: 'user' as const, content: 'Please use harbor__lookup' }, ...first.output, approval(request.id, true)];
    const next = await client.responses.create({ model, input: replay as OpenAI.Responses.ResponseInput, tools, store: false });
    expect(next.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(next.output[1]).toMatchObject({ name: 'lookup', approval_request_id: request.id, output: expect.stringMatching(/sunny$/) });
  });
});
