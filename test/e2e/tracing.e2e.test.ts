import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  QueueWorkerPool, defineQueueHandler, definePlugin, inSpan, notFound, servingDirectoryToken, startReferenceEngine, systemContext,
  type ReferenceEngine, type ServingDirectory,
} from '@berth/core';
import { MemoryStorage } from '@berth/core/testing';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { mcpTools } from '@berth/plugin-tools-mcp';
import { account, adminKey, baseModelBody, startHarness, type Harness } from './harness.js';
import { startMcpTestServer, type McpTestServer } from './fixtures/mcp-test-server.js';

/**
 * Issue 16, traces: with an SDK registered (an in-memory exporter here; the templates export over OTLP),
 * a chat completion is a SERVER span with a CLIENT child for the engine call whose W3C `traceparent`
 * reaches the engine, a control-plane read has the storage call as a child span, a Responses request's
 * MCP tool call is a CLIENT span inside the request's trace, and a queue job is a CONSUMER span its
 * handler's spans hang under.
 */
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
// Registered before any gateway is built: the gateway checks once whether tracing is on.
provider.register();

const model = `accounts/${account}/models/m`;
/** A model whose replica's endpoint nothing listens on: the gateway answers 5xx. */
const downModel = `accounts/${account}/models/down`;
let downEndpoint: string;
const deployment = `accounts/${account}/deployments/d`;
const seen: IncomingHttpHeaders[] = [];
let engine: Server;
let h: Harness;
// The Responses request with an MCP tool: the reference engine calls the tool the user message names.
const toolModel = `accounts/${account}/models/tool-user`;
let referenceEngine: ReferenceEngine;
let mcp: McpTestServer;
let withTools: Harness;

beforeAll(async () => {
  // The upstream engine: records what it was sent and answers one chat completion.
  engine = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        id: 'c1', object: 'chat.completion', created: 1, model: 'served',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      }));
    });
  });
  await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  downEndpoint = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
  const directory: ServingDirectory = {
    resolve: async (_ctx, name) => {
      if (name !== model && name !== downModel) throw notFound(name);
      return { accountId: account, model: name, deployment };
    },
    acquire: async (_ctx, target) => ({
      replicaId: 'r1', deployment: target.deployment, endpoint: target.model === downModel ? downEndpoint : endpoint, servedModelId: 'served', release() {},
    }),
  };
  const serving = definePlugin({ id: 'fake-serving', register: (binder) => binder.bindValue(servingDirectoryToken, directory, { override: true }) });
  h = await startHarness({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), serving] });

  referenceEngine = await startReferenceEngine({ modelIds: ['reference-model'] });
  mcp = await startMcpTestServer();
  const toolDirectory: ServingDirectory = {
    resolve: async (_ctx, name) => {
      if (name !== toolModel) throw notFound(name);
      return { accountId: account, model: name, deployment };
    },
    acquire: async (_ctx, target) => ({ replicaId: 'r1', deployment: target.deployment, endpoint: referenceEngine.url, servedModelId: 'reference-model', release() {} }),
  };
  const toolServing = definePlugin({ id: 'fake-serving', register: (binder) => binder.bindValue(servingDirectoryToken, toolDirectory, { override: true }) });
  withTools = await startHarness({
    plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), toolServing, mcpTools({ callTimeoutMs: 10_000 })], config: { allowLoopbackUrls: true },
  });
});
afterAll(async () => {
  await h?.close();
  await withTools?.close();
  await mcp?.close();
  await referenceEngine?.close();
  await new Promise((resolve) => engine?.close(resolve));
  await provider.shutdown();
  trace.disable();
});

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
/** True when `ancestor` is `span`'s parent, or its parent's, and so on, among `spans`. */
const descendsFrom = (span: ReadableSpan, ancestor: ReadableSpan, spans: readonly ReadableSpan[]): boolean => {
  for (let parent = parentOf(span); parent !== undefined; parent = spans.find((s) => s.spanContext().spanId === parent)?.parentSpanContext?.spanId) {
    if (parent === ancestor.spanContext().spanId) return true;
  }
  return false;
};

describe('traces', () => {
  it('a chat completion: SERVER span → CLIENT engine span, and the engine gets the traceparent', async () => {
    exporter.reset();
    const response = await fetch(`${h.url}/inference/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /inference/v1/chat/completions');
    const client = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'inference chat');
    expect(server, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(client).toBeDefined();
    expect(server!.attributes).toMatchObject({ 'http.route': '/inference/v1/chat/completions', 'http.response.status_code': 200 });
    expect(client!.attributes).toMatchObject({ 'berth.deployment': deployment, 'berth.model': model });
    expect(client!.spanContext().traceId).toBe(server!.spanContext().traceId);
    expect(parentOf(client!)).toBe(server!.spanContext().spanId);
    // W3C traceparent: version-traceId-parentSpanId-flags, the parent being the engine call's span.
    expect(seen.at(-1)?.traceparent).toBe(`00-${server!.spanContext().traceId}-${client!.spanContext().spanId}-01`);
  });

  it('a request answered 5xx: the SERVER span is failed with error.type the status, and no exception event', async () => {
    exporter.reset();
    const response = await fetch(`${h.url}/inference/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: downModel, messages: [{ role: 'user', content: 'hello' }] }),
    });
    await response.text();
    expect(response.status).toBeGreaterThanOrEqual(500);
    const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER);
    expect(server?.status.code).toBe(SpanStatusCode.ERROR);
    expect(server?.attributes).toMatchObject({ 'http.response.status_code': response.status, 'error.type': String(response.status) });
    expect(server?.events).toEqual([]);
  });

  it('continues the caller\'s trace from its traceparent', async () => {
    exporter.reset();
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const response = await fetch(`${h.url}/v1/accounts/${account}/models`, {
      headers: { authorization: `Bearer ${adminKey}`, traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    });
    expect(response.status).toBe(200);
    const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER);
    expect(server?.spanContext().traceId).toBe(traceId);
    expect(parentOf(server!)).toBe('b7ad6b7169203331');
    expect(server?.name).toBe('GET /v1/accounts/{account_id}/models');
  });

  it('a read of a model: SERVER span → storage span (db attributes, no ids)', async () => {
    const created = await h.call('POST', `/v1/accounts/${account}/models`, { body: { modelId: 'traced-model', model: baseModelBody() } });
    expect(created.status).toBe(200);
    exporter.reset();
    const response = await fetch(`${h.url}/v1/accounts/${account}/models/traced-model`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(response.status).toBe(200);
    await response.text();
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER);
    expect(server?.name).toBe('GET /v1/accounts/{account_id}/models/{model_id}');
    const read = spans.find((s) => s.name === 'resources.get models' && parentOf(s) === server!.spanContext().spanId);
    expect(read, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(read!.kind).toBe(SpanKind.INTERNAL);
    expect(read!.attributes).toEqual({ 'db.system.name': 'memory', 'db.operation.name': 'resources.get', 'db.collection.name': 'models' });
    expect(read!.spanContext().traceId).toBe(server!.spanContext().traceId);
  });

  it('a Responses request calling an MCP tool: the tool call is a CLIENT span inside the request\'s trace', async () => {
    exporter.reset();
    const response = await fetch(`${withTools.url}/inference/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: toolModel, input: 'Please use harbor__add',
        tools: [{ type: 'mcp', server_label: 'harbor', server_url: `${mcp.url}/mcp`, require_approval: 'never' }],
      }),
    });
    const body = await response.json() as { status: string; output: { type: string }[] };
    expect(response.status).toBe(200);
    expect(body.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /inference/v1/responses');
    const tool = spans.find((s) => s.name === 'mcp tool add');
    expect(server, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(tool, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(tool!.kind).toBe(SpanKind.CLIENT);
    expect(tool!.attributes).toMatchObject({ 'berth.mcp_server': 'harbor', 'berth.tool': 'add' });
    expect(tool!.spanContext().traceId).toBe(server!.spanContext().traceId);
    expect(descendsFrom(tool!, server!, spans)).toBe(true);
  });

  it('a queue job (a batch job\'s attempt): CONSUMER span with the handler\'s spans as children', async () => {
    exporter.reset();
    const storage = new MemoryStorage();
    let ran = false;
    const pool = new QueueWorkerPool({
      storage, pollIntervalMs: 10,
      handlers: [defineQueueHandler({ queue: 'traced', handle: async () => inSpan('row', {}, async () => { ran = true; }) })],
    });
    await storage.queue.enqueue(systemContext('test'), { queue: 'traced', payload: {} });
    pool.start();
    const until = Date.now() + 5_000;
    while (!exporter.getFinishedSpans().some((s) => s.name === 'queue job traced') && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    await pool.stop();
    expect(ran).toBe(true);
    const spans = exporter.getFinishedSpans();
    const job = spans.find((s) => s.name === 'queue job traced');
    const row = spans.find((s) => s.name === 'row');
    expect(job?.kind).toBe(SpanKind.CONSUMER);
    expect(job?.attributes).toMatchObject({ 'berth.queue': 'traced', 'berth.attempt': 1 });
    expect(parentOf(row!)).toBe(job!.spanContext().spanId);
  });
});
