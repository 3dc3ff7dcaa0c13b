import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { servingOptions } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { metrics } from '@berth/plugin-metrics';
import { account, adminKey, baseModelBody, startHarness, type Harness } from './harness.js';

/**
 * Issue 16, metrics: after known traffic (exactly N requests, M tokens as the answers' usage reports
 * them), `/metrics` holds exactly those counts, with route patterns (never raw URLs) as labels.
 */
const v1 = `/v1/accounts/${account}`;
const modelName = `accounts/${account}/models/llama-8b`;
const deploymentName = `accounts/${account}/deployments/chat`;
const metricsToken = 'metrics-token-0123456789abcdef';

/** The value of the sample `name{labels}` in a Prometheus text exposition (undefined when absent). */
export function sampleOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map<string, string>();
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) found.set(pair[1]!, pair[2]!);
    if (Object.entries(labels).every(([k, v]) => found.get(k) === v) && found.size === Object.keys(labels).length) return Number(match[3]);
  }
  return undefined;
}

let h: Harness;
const scrape = async (token: string | null = metricsToken) => {
  const response = await fetch(`${h.url}/metrics`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

beforeAll(async () => {
  h = await startHarness({
    plugins: [
      memoryStorage(),
      apiKeyAuth({ cacheTtlMs: 0 }),
      // 200 tokens/s: a streamed answer arrives token by token, so the gaps between chunks are measured.
      gpuxRuntime({ provisioner: { kind: 'simulated', delays: { schedulingMs: 10, downloadingMs: 10, initializingMs: 10 }, engine: { speed: { tokensPerSecond: 200 } } } }),
      servingOptions({ pollIntervalMs: 50 }),
      metrics({ bearerToken: metricsToken }),
    ],
  });
  expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'llama-8b', model: baseModelBody() } })).status).toBe(200);
  const created = await h.call('POST', `${v1}/deployments?deploymentId=chat`, { body: { baseModel: modelName, acceleratorType: 'GPUX_H100_80GB' } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const until = Date.now() + 10_000;
  while ((await h.call('GET', `${v1}/deployments/chat`)).body.state !== 'READY') {
    if (Date.now() > until) throw new Error('deployment did not become READY');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
});
afterAll(async () => h?.close());

describe('GET /metrics', () => {
  it('needs its own bearer token: none, a wrong one and an API key answer 401', async () => {
    expect((await scrape(null)).status).toBe(401);
    expect((await scrape('wrong-token-0123456789abcdef')).status).toBe(401);
    expect((await scrape(adminKey)).status).toBe(401);
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.type).toContain('text/plain');
  });

  it('counts exactly the requests made, by route pattern and status', async () => {
    const before = await scrape();
    const route = { method: 'GET', route: '/v1/accounts/{account_id}/models/{model_id}' };
    const ok = sampleOf(before.text, 'berth_http_requests_total', { ...route, status: '200' }) ?? 0;
    const missing = sampleOf(before.text, 'berth_http_requests_total', { ...route, status: '404' }) ?? 0;
    for (let i = 0; i < 5; i++) expect((await h.call('GET', `${v1}/models/llama-8b`)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await h.call('GET', `${v1}/models/nope-${i}`)).status).toBe(404);
    expect((await h.call('GET', '/no/such/path')).status).toBe(404);
    const after = (await scrape()).text;
    expect(sampleOf(after, 'berth_http_requests_total', { ...route, status: '200' })).toBe(ok + 5);
    expect(sampleOf(after, 'berth_http_requests_total', { ...route, status: '404' })).toBe(missing + 2);
    expect(sampleOf(after, 'berth_http_request_duration_seconds_count', { ...route, status: '200' })).toBe(ok + 5);
    expect(sampleOf(after, 'berth_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    // Custom methods keep their verb; raw URLs (ids, queries) never become labels.
    expect(after).not.toContain('nope-0');
    expect(after).not.toContain('/no/such/path');
  });

  it('counts inference calls and exactly the tokens their usage reports, with first-token and inter-token latency for streams', async () => {
    const client = new OpenAI({ apiKey: adminKey, baseURL: `${h.url}/inference/v1`, maxRetries: 0 });
    let prompt = 0;
    let completion = 0;
    for (let i = 0; i < 2; i++) {
      const answer = await client.chat.completions.create({ model: modelName, messages: [{ role: 'user', content: `Say hello ${i}` }], max_tokens: 8 });
      prompt += answer.usage?.prompt_tokens ?? Number.NaN;
      completion += answer.usage?.completion_tokens ?? Number.NaN;
    }
    const stream = await client.chat.completions.create({
      model: modelName, messages: [{ role: 'user', content: 'Count to five' }], max_tokens: 12, stream: true, stream_options: { include_usage: true },
    });
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      if (chunk.usage) {
        prompt += chunk.usage.prompt_tokens;
        completion += chunk.usage.completion_tokens;
      }
    }
    expect(chunks).toBeGreaterThan(2);
    expect(prompt).toBeGreaterThan(0);
    expect(completion).toBeGreaterThan(0);

    const text = (await scrape()).text;
    const labels = { deployment: deploymentName, model: modelName };
    expect(sampleOf(text, 'berth_inference_requests_total', { ...labels, operation: 'chat', stream: 'false', status: '200' })).toBe(2);
    expect(sampleOf(text, 'berth_inference_requests_total', { ...labels, operation: 'chat', stream: 'true', status: '200' })).toBe(1);
    expect(sampleOf(text, 'berth_inference_prompt_tokens_total', labels)).toBe(prompt);
    expect(sampleOf(text, 'berth_inference_completion_tokens_total', labels)).toBe(completion);
    expect(sampleOf(text, 'berth_inference_time_to_first_token_seconds_count', labels)).toBe(1);
    expect(sampleOf(text, 'berth_inference_inter_token_latency_seconds_count', labels)).toBeGreaterThan(0);
    expect(sampleOf(text, 'berth_http_requests_total', { method: 'POST', route: '/inference/v1/chat/completions', status: '200' })).toBe(3);
  });

  it('reports replicas by deployment and phase, and the storage as up', async () => {
    const text = (await scrape()).text;
    expect(sampleOf(text, 'berth_replicas', { deployment: deploymentName, phase: 'ready' })).toBe(1);
    expect(sampleOf(text, 'berth_storage_up')).toBe(1);
    expect(text).toContain('# TYPE berth_queue_jobs gauge');
    expect(text).toContain('berth_process_cpu_seconds_total');
  });
});

describe('metrics on a port of their own', () => {
  it('serves them there, behind the token, and not on the gateway\'s port', async () => {
    const plugin = metrics({ port: 0, bearerToken: metricsToken, processMetrics: false });
    const own = await startHarness({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), plugin] });
    try {
      const url = plugin.address?.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect((await fetch(url!)).status).toBe(401);
      const scraped = await fetch(url!, { headers: { authorization: `Bearer ${metricsToken}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('# TYPE berth_http_requests_total counter');
      expect((await own.call('GET', '/metrics')).status).toBe(404);
    } finally {
      await own.close();
    }
    expect(plugin.address).toBeUndefined();
  });
});
