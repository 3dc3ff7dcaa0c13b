import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  /**
   * CPU time (user + system) the server process used per request during the run, in microseconds;
   * NaN without `serverPid` or where /proc is missing. Other load on the machine moves it far less than
   * requests per second: a server pinned to its own core serves about 1e6 / this many requests a second.
   */
  readonly cpuMicrosPerRequest: number;
}

/** CPU time (user + system) a process has used, in microseconds; undefined where /proc is missing. */
export function cpuMicros(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // utime and stime, in ticks of 1/100 s (USER_HZ)
  } catch {
    return undefined;
  }
}

/** Runs autocannon against one URL for a bounded time (loopback only). */
export async function runLoad(options: { url: string; headers?: Record<string, string>; connections: number; seconds: number; serverPid?: number }): Promise<LoadResult> {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(options.url)) throw new Error('load tests target loopback only');
  const cpuBefore = options.serverPid === undefined ? undefined : cpuMicros(options.serverPid);
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers ?? {},
    pipelining: 1,
  });
  const cpuAfter = options.serverPid === undefined ? undefined : cpuMicros(options.serverPid);
  const requests = result.requests.total;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuMicrosPerRequest: cpuBefore === undefined || cpuAfter === undefined || requests === 0 ? Number.NaN : (cpuAfter - cpuBefore) / requests,
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
