import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from './gateway-metrics.js';

const repo = new URL('../../../', import.meta.url);
const declared = new Set(new GatewayMetrics({ processMetrics: false }).registry.getMetricsAsArray().map((metric) => metric.name));
/** Metric names in `text`, histogram series (`_bucket`, `_count`, `_sum`) folded into their histogram. */
const namesIn = (text: string) => new Set([...text.matchAll(/\bberth_[a-z_]+\b/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, '')));

describe('the metric names the docs and the dashboard use', () => {
  it('the Grafana dashboard is valid JSON and queries only declared metrics', () => {
    const dashboard = JSON.parse(readFileSync(new URL('docs/grafana/berth.json', repo), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const used = namesIn(dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)).join('\n'));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !declared.has(name))).toEqual([]);
  });

  it('docs/operations.md documents every declared metric, and no other', () => {
    const documented = namesIn(readFileSync(new URL('docs/operations.md', repo), 'utf8'));
    expect([...declared].filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !declared.has(name) && !name.startsWith('berth_process_') && !name.startsWith('berth_nodejs_'))).toEqual([]);
  });
});
