import { fileURLToPath } from 'node:url';
import { startChildServer } from '../lib/child-server.js';
import { printTable } from '../lib/load.js';

/**
 * bench/hostile-bodies: what hostile JSON bodies cost the server's event loop. Each case is posted
 * `repeat` times in a row; the server reports the CPU time it used per request and the largest event-loop
 * delay it saw (monitorEventLoopDelay, 1 ms resolution; on a busy machine this includes time the process
 * waited for a CPU, hence the baseline row), and `/healthz` is timed while three copies are in flight.
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const repeat = Number(process.env.BENCH_REPEAT ?? 5);

function manyKeys(count: number, broken = false): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i += 1) parts.push(`"k${i}":1`);
  return `{${parts.join(',')}${broken ? '' : '}'}`;
}

interface Case {
  readonly name: string;
  readonly body: string;
  /** The admin key, a wrong key, or none. */
  readonly key: 'valid' | 'wrong' | 'none';
  readonly path?: string;
}

export async function runHostileBodiesBenchmark(): Promise<void> {
  const server = await startChildServer(here('./server.ts'));
  const apiKey = String(server.info.apiKey);
  const chat = (content: string) => JSON.stringify({ model: 'accounts/bench/models/none', messages: [{ role: 'user', content }] });
  const cases: Case[] = [
    { name: 'baseline: a 100-byte body', body: JSON.stringify({ modelId: 'x', model: { displayName: 'small' } }), key: 'valid' },
    { name: '800k keys (invalid JSON), no key', body: manyKeys(800_000, true), key: 'none' },
    { name: '800k keys (invalid JSON), wrong key', body: manyKeys(800_000, true), key: 'wrong' },
    { name: '800k keys', body: manyKeys(800_000), key: 'valid' },
    { name: '10,000 keys (at the limit)', body: JSON.stringify({ model: Object.fromEntries(Array.from({ length: 9_999 }, (_, i) => [`k${i}`, i])) }), key: 'valid' },
    { name: '99,000 large numbers (at the limit)', body: JSON.stringify({ model: { n: Array.from({ length: 99_000 }, (_, i) => 1e15 + i) } }), key: 'valid' },
    { name: '1M numbers (over the limit)', body: `[${Array.from({ length: 1_000_000 }, (_, i) => 1e6 + i).join(',')}]`, key: 'valid' },
    { name: 'one 10 MB string, control plane', body: JSON.stringify({ model: { displayName: 'x'.repeat(10_000_000) } }), key: 'valid' },
    { name: 'one 10 MB string, inference', body: chat('x'.repeat(10_000_000)), key: 'valid', path: '/inference/v1/chat/completions' },
    { name: 'depth 100,000', body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, key: 'valid' },
  ];
  const post = (c: Case) =>
    fetch(`${server.url}${c.path ?? '/v1/accounts/bench/models'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(c.key === 'none' ? {} : { authorization: `Bearer ${c.key === 'valid' ? apiKey : 'not-a-key'}` }) },
      body: c.body,
    }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
  const eld = async () => (await (await fetch(`${server.url}/__eld`)).json()) as { maxMs: number; cpuMs: number };
  const rows: Array<Array<string | number>> = [];
  try {
    for (const c of cases) {
      await post(c);
      await eld();
      let status = 0;
      for (let i = 0; i < repeat; i += 1) status = await post(c);
      const { maxMs, cpuMs } = await eld();
      const mb = Buffer.byteLength(c.body) / 1e6;
      // /healthz while three copies are in flight.
      const inFlight = [post(c), post(c), post(c)];
      await new Promise((resolve) => setTimeout(resolve, 5));
      const started = performance.now();
      await (await fetch(`${server.url}/healthz`)).arrayBuffer();
      const healthMs = performance.now() - started;
      await Promise.all(inFlight);
      rows.push([c.name, mb.toFixed(1), status, (cpuMs / repeat).toFixed(1), maxMs.toFixed(1), healthMs.toFixed(1)]);
    }
    console.log(`\nhostile-bodies benchmark: ${repeat} posts per case, Node ${process.version}\n`);
    printTable(['body', 'MB', 'status', 'server CPU ms per request', 'max event-loop delay ms', '/healthz ms (3 in flight)'], rows);
  } finally {
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runHostileBodiesBenchmark();
}
