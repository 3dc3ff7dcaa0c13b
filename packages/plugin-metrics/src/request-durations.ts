import type { Metric, Registry } from 'prom-client';

/** One series: counts per bucket (not cumulative; the last slot is past the largest bound), sum and count. */
interface Series {
  readonly labels: { readonly method: string; readonly route: string; readonly status: string };
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A sample as prom-client's registry renders it (`metricName` with the suffix, the labels, the value). */
interface Sample {
  readonly metricName: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

/**
 * The HTTP request duration histogram, recorded on every request's hot path. prom-client's `observe`
 * (with or without `labels()`) builds, validates and hashes a label object on every call; here each series
 * is found through nested maps keyed by the strings and number the transport already holds (route, method,
 * status: no object or string built per request) and counted in plain arrays. Prometheus samples are made
 * only when scraped: the metric registers itself in the registry with what the registry reads of a metric
 * (`name`, `help`, `type`, `aggregator`, `get`, `reset`), and renders exactly as a prom-client histogram:
 * cumulative `_bucket` per bound and `+Inf`, `_sum`, `_count`.
 */
export class RequestDurations {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();
  private readonly bounds: readonly number[];

  constructor(readonly name: string, readonly help: string, buckets: readonly number[], registry: Registry) {
    this.bounds = [...buckets].sort((a, b) => a - b);
    // The registry's type names prom-client's own metric classes; it reads only the members above.
    registry.registerMetric(this as unknown as Metric);
  }

  /** Records one answered request. */
  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (byMethod === undefined) this.series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      series = { labels: { method, route, status: String(status) }, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      byStatus.set(status, series);
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket += 1;
    series.counts[bucket]! += 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** Every series' labels and request count. */
  *counts(): Generator<{ readonly labels: Series['labels']; readonly count: number }> {
    for (const byMethod of this.series.values()) for (const byStatus of byMethod.values()) yield* byStatus.values();
  }

  reset(): void {
    this.series.clear();
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    for (const { labels, counts, sum, count } of this.counts() as Iterable<Series>) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i += 1) {
        cumulative += counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: this.bounds[i]!, ...labels }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
