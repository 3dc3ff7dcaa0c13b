import { Pool } from 'undici';

export interface LatencyResult {
  readonly requests: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly failures: number;
}

export interface Target {
  readonly name: string;
  readonly url: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly streamBody: string;
}

function assertLoopback(url: string): void {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(url)) throw new Error('benchmarks target loopback only');
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Closed-loop latency at a fixed concurrency, timed per request with hrtime (microsecond resolution,
 * which autocannon's millisecond histogram lacks). Keep-alive connections, one per worker.
 */
export async function measureLatency(target: Target, concurrency: number, seconds: number): Promise<LatencyResult> {
  assertLoopback(target.url);
  const pool = new Pool(target.url, { connections: concurrency, pipelining: 1 });
  const samples: number[] = [];
  let failures = 0;
  const end = Date.now() + seconds * 1000;
  const headers = { ...target.headers, 'content-type': 'application/json' };
  const worker = async () => {
    while (Date.now() < end) {
      const start = process.hrtime.bigint();
      const response = await pool.request({ path: target.path, method: 'POST', headers, body: target.body });
      await response.body.dump({ limit: Number.MAX_SAFE_INTEGER });
      const took = Number(process.hrtime.bigint() - start) / 1000;
      if (response.statusCode === 200) samples.push(took);
      else failures += 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await pool.close();
  }
  samples.sort((a, b) => a - b);
  return { requests: samples.length, p50Us: percentile(samples, 50), p99Us: percentile(samples, 99), failures };
}

/** What marks a chat-completion chunk holding a content delta (the role-only chunk before it does not count). */
export const chatFirstToken = Buffer.from('"delta":{"content":');

/**
 * Time to the first streamed token: N sequential `stream: true` requests on one keep-alive connection,
 * each timed from send to the arrival of the first bytes holding `marker` (by default a chat chunk's
 * content delta). The rest of the stream is drained before the next request.
 */
export async function measureTtft(target: Target, requests: number, marker: Buffer = chatFirstToken): Promise<LatencyResult> {
  assertLoopback(target.url);
  const pool = new Pool(target.url, { connections: 1, pipelining: 1 });
  const samples: number[] = [];
  let failures = 0;
  const headers = { ...target.headers, 'content-type': 'application/json', accept: 'text/event-stream' };
  try {
    for (let i = 0; i < requests; i += 1) {
      const start = process.hrtime.bigint();
      const response = await pool.request({ path: target.path, method: 'POST', headers, body: target.streamBody });
      let first: number | undefined;
      let tail = Buffer.alloc(0);
      for await (const chunk of response.body) {
        if (first === undefined) {
          const seen = Buffer.concat([tail, chunk as Buffer]);
          if (seen.includes(marker)) first = Number(process.hrtime.bigint() - start) / 1000;
          else tail = seen.subarray(Math.max(0, seen.length - marker.length));
        }
      }
      if (response.statusCode === 200 && first !== undefined) samples.push(first);
      else failures += 1;
    }
  } finally {
    await pool.close();
  }
  samples.sort((a, b) => a - b);
  return { requests: samples.length, p50Us: percentile(samples, 50), p99Us: percentile(samples, 99), failures };
}
