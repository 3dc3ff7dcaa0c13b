import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestDurations } from './request-durations.js';

const buckets = [0.001, 0.005, 0.1, 1];
const observations: Array<[string, string, number, number]> = [
  ['GET', '/v1/accounts/{account_id}/models/{model_id}', 200, 0.0004],
  ['GET', '/v1/accounts/{account_id}/models/{model_id}', 200, 0.001],
  ['GET', '/v1/accounts/{account_id}/models/{model_id}', 200, 0.0031],
  ['GET', '/v1/accounts/{account_id}/models/{model_id}', 404, 0.2],
  ['POST', '/v1/accounts/{account_id}/models/{model_id}', 200, 7],
  ['POST', '/inference/v1/chat/completions', 502, 0.05],
];

describe('RequestDurations', () => {
  it('renders exactly what a prom-client histogram renders for the same observations', async () => {
    const ours = new Registry();
    const durations = new RequestDurations('berth_test_seconds', 'Test durations.', buckets, ours);
    const theirs = new Registry();
    const reference = new Histogram({ name: 'berth_test_seconds', help: 'Test durations.', labelNames: ['method', 'route', 'status'], buckets, registers: [theirs] });
    for (const [method, route, status, seconds] of observations) {
      durations.record(method, route, status, seconds);
      reference.observe({ method, route, status: String(status) }, seconds);
    }
    const sorted = (text: string) => text.split('\n').sort();
    expect(sorted(await ours.metrics())).toEqual(sorted(await theirs.metrics()));
    expect(await ours.metrics()).toContain('berth_test_seconds_bucket{le="0.005",method="GET",route="/v1/accounts/{account_id}/models/{model_id}",status="200"} 3');
    expect(await ours.metrics()).toContain('berth_test_seconds_count{method="POST",route="/v1/accounts/{account_id}/models/{model_id}",status="200"} 1');
  });

  it('counts per series; a reset of the registry zeroes them and leaves no sample until the next request', async () => {
    const registry = new Registry();
    const durations = new RequestDurations('berth_test_seconds', 'Test durations.', buckets, registry);
    for (const [method, route, status, seconds] of observations) durations.record(method, route, status, seconds);
    expect(durations.counts().map(({ labels, count }) => `${labels.method} ${labels.status} ${count}`).sort())
      .toEqual(['GET 200 3', 'GET 404 1', 'POST 200 1', 'POST 502 1']);
    registry.resetMetrics();
    expect(durations.counts()).toEqual([]);
    expect(await registry.metrics()).not.toContain('berth_test_seconds_count');
    durations.record('GET', '/v1/x', 200, 0.002);
    expect(await registry.metrics()).toContain('berth_test_seconds_count{method="GET",route="/v1/x",status="200"} 1');
  });
});
