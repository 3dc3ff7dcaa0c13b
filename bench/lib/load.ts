import autocannon from 'autocannon';

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** Runs autocannon against one URL for a bounded time (loopback only). */
export async function runLoad(options: { url: string; headers?: Record<string, string>; connections: number; seconds: number }): Promise<LoadResult> {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(options.url)) throw new Error('load tests target loopback only');
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers ?? {},
    pipelining: 1,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Prints rows as an aligned text table. */
export function printTable(headers: string[], rows: Array<Array<string | number>>): void {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  for (const [index, row] of cells.entries()) {
    console.log(row.map((c, i) => c.padEnd(widths[i]!)).join('  '));
    if (index === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}
