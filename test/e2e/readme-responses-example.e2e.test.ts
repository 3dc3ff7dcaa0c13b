import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '@berth/core';
import { serveGateway, type RunningServer } from '@berth/plugin-transport-fastify';
import { buildGateway } from '../../templates/gateway/src/build-gateway.js';
import { readSettings } from '../../templates/gateway/src/gateway-config.js';

/**
 * The README's Responses API example (examples/responses-client.ts, quoted whole in the README) run as
 * written, in its own Node process, with the official `openai` client, against a gateway assembled as
 * `npm start` assembles it (the template's settings and plugins on the embedded default: memory storage,
 * simulated replicas), after the README's setup: the tour's model and a deployment of it.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const examplePath = `${root}examples/responses-client.ts`;
const mcpExamplePath = `${root}examples/responses-mcp.ts`;
const apiKey = 'dev-secret-key';
const v1 = '/v1/accounts/my-account';

let gateway: Gateway;
let server: RunningServer;

async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const parsed = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${method} ${path}: HTTP ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

beforeAll(async () => {
  // `npm start` with BERTH_API_KEY=dev-secret-key and BERTH_ALLOW_LOOPBACK_URLS=true (the README's setup), on a free port, quiet.
  const settings = readSettings({ BERTH_API_KEY: apiKey, BERTH_ALLOW_LOOPBACK_URLS: 'true', PORT: '0', LOG_LEVEL: 'error' });
  gateway = buildGateway(settings);
  await gateway.start();
  server = await serveGateway(gateway, { host: settings.host, port: settings.port });
  // The README's setup: the tour's model, then a deployment of it.
  await call('POST', `${v1}/models`, {
    modelId: 'llama-3-8b',
    model: {
      kind: 'HUB_BASE_MODEL', displayName: 'Llama 3 8B', contextLength: 8192,
      baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] },
    },
  });
  await call('POST', `${v1}/deployments?deploymentId=h100`, {
    baseModel: 'accounts/my-account/models/llama-3-8b', acceleratorType: 'GPUX_H100_80GB', minReplicaCount: 1, maxReplicaCount: 2,
  });
  const until = Date.now() + 30_000;
  while ((await call('GET', `${v1}/deployments/h100`)).state !== 'READY') {
    if (Date.now() > until) throw new Error('deployment h100 did not become READY within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 60_000);

afterAll(async () => {
  await server?.close();
  await gateway?.stop();
});

describe('README: the Responses API with the official openai client', () => {
  it('quotes examples/responses-client.ts whole', async () => {
    const [readme, example] = await Promise.all([readFile(`${root}README.md`, 'utf8'), readFile(examplePath, 'utf8')]);
    expect(readme).toContain('```ts\n' + example + '```\n');
  });

  it('runs the example: a previous_response_id conversation, a stream and a function tool round trip', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@berth/source', '--import', 'tsx', examplePath], {
      cwd: root,
      timeout: 60_000,
      env: { PATH: process.env.PATH, BERTH_BASE_URL: `${server.url}/inference/v1`, BERTH_API_KEY: apiKey },
    });

    const conversation = /^conversation (resp_[0-9a-f]{32}) -> (resp_[0-9a-f]{32}): (.+)$/m.exec(stdout);
    expect(conversation, stdout).not.toBeNull();
    const [, firstId, secondId] = conversation!;
    const second = await call('GET', `/inference/v1/responses/${secondId}`);
    expect(second).toMatchObject({ status: 'completed', previous_response_id: firstId, model: 'accounts/my-account/models/llama-3-8b' });
    const history = (await call('GET', `/inference/v1/responses/${secondId}/input_items?order=asc`)).data as Array<{ type: string; role?: string; content?: Array<{ text?: string }> }>;
    expect(history.map((item) => item.role ?? item.type)).toEqual(['user', 'assistant', 'user']);
    expect(history[0]!.content?.[0]?.text).toBe('My ship is called Aurora.');

    const streamed = /^(.+)\nstreamed (resp_[0-9a-f]{32})$/m.exec(stdout);
    expect(streamed, stdout).not.toBeNull();
    const [, streamedText, streamedId] = streamed!;
    const stored = await call('GET', `/inference/v1/responses/${streamedId}`);
    const storedText = (stored.output as Array<{ content: Array<{ text: string }> }>).flatMap((item) => item.content.map((part) => part.text)).join('');
    expect(storedText).toBe(streamedText);

    const tool = /^tool get_weather\((.+)\) in (resp_[0-9a-f]{32}) -> (resp_[0-9a-f]{32}): (.+)$/m.exec(stdout);
    expect(tool, stdout).not.toBeNull();
    const [, args, askedId, answeredId] = tool!;
    expect(JSON.parse(args!)).toHaveProperty('city');
    const asked = await call('GET', `/inference/v1/responses/${askedId}`);
    expect((asked.output as Array<{ type: string }>).map((item) => item.type)).toEqual(['function_call']);
    const answered = await call('GET', `/inference/v1/responses/${answeredId}`);
    expect(answered).toMatchObject({ status: 'completed', previous_response_id: askedId });
    const answeredInput = (await call('GET', `/inference/v1/responses/${answeredId}/input_items?limit=1`)).data as Array<{ type: string; output?: string }>;
    expect(answeredInput[0]).toMatchObject({ type: 'function_call_output' });
    expect(JSON.parse(answeredInput[0]!.output!)).toMatchObject({ temperature_celsius: 21, sky: 'clear' });
  });

  it('quotes examples/responses-mcp.ts whole and runs it: an MCP tool listed, called and answered from, then streamed', async () => {
    const [readme, example] = await Promise.all([readFile(`${root}README.md`, 'utf8'), readFile(mcpExamplePath, 'utf8')]);
    expect(readme).toContain('```ts\n' + example + '```\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@berth/source', '--import', 'tsx', mcpExamplePath], {
      cwd: root,
      timeout: 60_000,
      env: { PATH: process.env.PATH, BERTH_BASE_URL: `${server.url}/inference/v1`, BERTH_API_KEY: apiKey },
    });
    expect(stdout).toMatch(/^tools of calculator: add$/m);
    const called = /^mcp_call add\((.+)\) -> (.+)$/m.exec(stdout);
    expect(called, stdout).not.toBeNull();
    const args = JSON.parse(called![1]!) as { a: number; b: number };
    expect(called![2]).toBe(String(args.a + args.b));
    const answer = /^answer in (resp_[0-9a-f]{32}): (.+)$/m.exec(stdout);
    expect(answer, stdout).not.toBeNull();
    const stored = await call('GET', `/inference/v1/responses/${answer![1]}`);
    expect((stored.output as Array<{ type: string }>).map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const streamedEvents = stdout.split('\n').filter((line) => line.startsWith('response.mcp_'));
    expect(streamedEvents).toEqual([
      'response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed',
      'response.mcp_call_arguments.delta', 'response.mcp_call_arguments.done', 'response.mcp_call.in_progress', 'response.mcp_call.completed',
    ]);
    expect(stdout).toMatch(/^streamed resp_[0-9a-f]{32}$/m);
  });
});
