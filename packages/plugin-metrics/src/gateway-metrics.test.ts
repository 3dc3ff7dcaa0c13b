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
