import type { Metric, Registry } from 'prom-client';

/** One series of a {@link ScrapedHistogram}: counts per bucket (not cumulative; the last slot is past the largest bound), sum and count. */
export interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
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
 * A histogram recorded on a hot path. prom-client's `observe` (with or without `labels()`) builds,
 * validates and hashes a label object on every call; here the caller finds its series once (and may keep
 * it), and an observation is a bucket search and three additions on plain numbers. Prometheus samples are
 * made only when scraped: the histogram registers itself in the registry with what the registry reads of a
 * metric (`name`, `help`, `type`, `aggregator`, `get`, `reset`) and renders exactly as a prom-client
 * histogram: cumulative `_bucket` per bound and `+Inf`, `_sum`, `_count` per series.
 */
export class ScrapedHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all: HistogramSeries[] = [];
  private readonly bounds: readonly number[];

  constructor(readonly name: string, readonly help: string, buckets: readonly number[], registry: Registry) {
    this.bounds = [...buckets].sort((a, b) => a - b);
    // The registry's type names prom-client's own metric classes; it reads only the members above.
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new series with `labels` (the caller keeps it and finds it again: one per label set). */
  createSeries(labels: Readonly<Record<string, string>>): HistogramSeries {
    const series: HistogramSeries = { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
    this.all.push(series);
    return series;
  }

  observe(series: HistogramSeries, value: number): void {
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]!) bucket += 1;
    series.counts[bucket]! += 1;
    series.sum += value;
    series.count += 1;
  }

  /** Every series (its labels and count). */
  series(): readonly HistogramSeries[] {
    return this.all;
  }

  /** Zeroes every series (they stay valid for their holders). */
  reset(): void {
    for (const series of this.all) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    for (const { labels, counts, sum, count } of this.all) {
      if (count === 0) continue;
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

/**
 * The HTTP request duration histogram: a {@link ScrapedHistogram} whose series are found through nested
 * maps keyed by the route, method and status the transport already holds (no object or string built per
 * request).
 */
export class RequestDurations {
  private readonly histogram: ScrapedHistogram;
  private readonly byRoute = new Map<string, Map<string, Map<number, HistogramSeries>>>();

  constructor(name: string, help: string, buckets: readonly number[], registry: Registry) {
    this.histogram = new ScrapedHistogram(name, help, buckets, registry);
  }

  /** Records one answered request. */
  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) byStatus.set(status, (series = this.histogram.createSeries({ method, route, status: String(status) })));
    this.histogram.observe(series, seconds);
  }

  /** Every series' labels and request count (series with no request left out). */
  counts(): { readonly labels: Readonly<Record<string, string>>; readonly count: number }[] {
    return this.histogram.series().filter((series) => series.count > 0);
  }
}
