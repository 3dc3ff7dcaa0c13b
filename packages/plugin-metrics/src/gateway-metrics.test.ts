import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from './gateway-metrics.js';

const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('GatewayMetrics HTTP requests', () => {
  it('exposes the request count per series, equal to the duration histogram\'s count, at every scrape', async () => {
    const metrics = new GatewayMetrics({ processMetrics: false });
    const route = '/v1/accounts/{account_id}/models/{model_id}';
    for (let i = 0; i < 3; i += 1) metrics.httpRequest({ method: 'GET', route, status: 200, durationSeconds: 0.002 });
    metrics.httpRequest({ method: 'GET', route, status: 404, durationSeconds: 0.001 });
    const ok = `{method="GET",route="${route}",status="200"}`;
    const missing = `{method="GET",route="${route}",status="404"}`;

    const first = await metrics.registry.metrics();
    expect(first).toContain('# TYPE berth_http_requests_total counter');
    expect(sample(first, `berth_http_requests_total${ok}`)).toBe(3);
    expect(sample(first, `berth_http_requests_total${missing}`)).toBe(1);
    expect(sample(first, `berth_http_request_duration_seconds_count${ok}`)).toBe(3);
    expect(sample(first, `berth_http_request_duration_seconds_sum${ok}`)).toBeCloseTo(0.006);

    metrics.httpRequest({ method: 'GET', route, status: 200, durationSeconds: 0.003 });
    const second = await metrics.registry.metrics();
    expect(sample(second, `berth_http_requests_total${ok}`)).toBe(4);
    expect(sample(second, `berth_http_requests_total${missing}`)).toBe(1);
  });
});

describe('GatewayMetrics inference calls', () => {
  it('counts calls per series and sums tokens, the same at every scrape; a series without usage has no token samples', async () => {
    const metrics = new GatewayMetrics({ processMetrics: false });
    const call = { deployment: 'accounts/a/deployments/d', model: 'accounts/a/models/m', operation: 'chat' as const, stream: false, status: 200 };
    metrics.inference({ ...call, promptTokens: 10, completionTokens: 4 });
    metrics.inference({ ...call, promptTokens: 5, completionTokens: 1 });
    metrics.inference({ ...call, status: 502 });
    metrics.inference({ ...call, model: 'accounts/a/models/quiet', stream: true });
    const series = `{deployment="${call.deployment}",model="${call.model}"}`;
    const ok = `{deployment="${call.deployment}",model="${call.model}",operation="chat",stream="false",status="200"}`;
    const failed = `{deployment="${call.deployment}",model="${call.model}",operation="chat",stream="false",status="502"}`;
    const quiet = `{deployment="${call.deployment}",model="accounts/a/models/quiet",operation="chat",stream="true",status="200"}`;
    for (let scrape = 0; scrape < 2; scrape += 1) {
      const text = await metrics.registry.metrics();
      expect(sample(text, `berth_inference_requests_total${ok}`)).toBe(2);
      expect(sample(text, `berth_inference_requests_total${failed}`)).toBe(1);
      expect(sample(text, `berth_inference_requests_total${quiet}`)).toBe(1);
      expect(sample(text, `berth_inference_prompt_tokens_total${series}`)).toBe(15);
      expect(sample(text, `berth_inference_completion_tokens_total${series}`)).toBe(5);
      expect(text).not.toContain('berth_inference_prompt_tokens_total{deployment="accounts/a/deployments/d",model="accounts/a/models/quiet"}');
    }
  });

  it('starts again from nothing after the registry is reset (resetMetrics), as prom-client\'s own counters do', async () => {
    const metrics = new GatewayMetrics({ processMetrics: false });
    const call = { deployment: 'accounts/a/deployments/d', model: 'accounts/a/models/m', operation: 'chat' as const, stream: false, status: 200 };
    metrics.inference({ ...call, promptTokens: 10, completionTokens: 4 });
    metrics.inference({ ...call, promptTokens: 5, completionTokens: 1 });
    const series = `{deployment="${call.deployment}",model="${call.model}"}`;
    const ok = `{deployment="${call.deployment}",model="${call.model}",operation="chat",stream="false",status="200"}`;
    expect(sample(await metrics.registry.metrics(), `berth_inference_requests_total${ok}`)).toBe(2);
    metrics.registry.resetMetrics();
    const reset = await metrics.registry.metrics();
    expect(sample(reset, `berth_inference_requests_total${ok}`)).toBeUndefined();
    expect(sample(reset, `berth_inference_prompt_tokens_total${series}`)).toBeUndefined();
    expect(sample(reset, `berth_inference_completion_tokens_total${series}`)).toBeUndefined();
    metrics.inference({ ...call, promptTokens: 3, completionTokens: 2 });
    const after = await metrics.registry.metrics();
    expect(sample(after, `berth_inference_requests_total${ok}`)).toBe(1);
    expect(sample(after, `berth_inference_prompt_tokens_total${series}`)).toBe(3);
    expect(sample(after, `berth_inference_completion_tokens_total${series}`)).toBe(2);
  });
});

describe('GatewayMetrics streamed answers', () => {
  it('observes the time to the first token and every gap between chunks per deployment and model', async () => {
    const metrics = new GatewayMetrics({ processMetrics: false });
    const call = { deployment: 'accounts/a/deployments/d', model: 'accounts/a/models/m', operation: 'chat' as const, stream: true, status: 200 };
    metrics.inference({ ...call, timeToFirstTokenSeconds: 0.04, interTokenSeconds: [0.003, 0.003, 0.05] });
    metrics.inference({ ...call, timeToFirstTokenSeconds: 0.2, interTokenSeconds: [0.002] });
    const series = `deployment="${call.deployment}",model="${call.model}"`;
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE berth_inference_time_to_first_token_seconds histogram');
    expect(sample(text, `berth_inference_time_to_first_token_seconds_count{${series}}`)).toBe(2);
    expect(sample(text, `berth_inference_time_to_first_token_seconds_bucket{le="0.05",${series}}`)).toBe(1);
    expect(sample(text, `berth_inference_time_to_first_token_seconds_sum{${series}}`)).toBeCloseTo(0.24);
    expect(sample(text, `berth_inference_inter_token_latency_seconds_count{${series}}`)).toBe(4);
    expect(sample(text, `berth_inference_inter_token_latency_seconds_bucket{le="0.0025",${series}}`)).toBe(1);
    expect(sample(text, `berth_inference_inter_token_latency_seconds_bucket{le="0.005",${series}}`)).toBe(3);
    expect(sample(text, `berth_inference_inter_token_latency_seconds_bucket{le="+Inf",${series}}`)).toBe(4);
  });
});
