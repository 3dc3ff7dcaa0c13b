import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ChildServer {
  readonly url: string;
  /** Process id of the server, e.g. to pin it to a CPU. */
  readonly pid: number;
  readonly info: Record<string, unknown>;
  stop(): Promise<void>;
}

/**
 * Node options for every child server, from `BENCH_NODE_OPTIONS` (whitespace-separated), e.g.
 * `BENCH_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof"` to profile the servers a benchmark starts
 * (not the benchmark's own process; a profile is written when the child exits on `stop()`).
 */
export function benchNodeOptions(value = process.env.BENCH_NODE_OPTIONS): string[] {
  return (value ?? '').split(/\s+/).filter((option) => option !== '');
}

/** The Node options of a `node <options> <script>` package script (`start`): its words that begin with `--`. */
export function nodeOptionsOfScript(script: string): string[] {
  const words = script.trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`not a node command: ${script}`);
  return words.slice(1).filter((word) => word.startsWith('--'));
}

/**
 * The Node options `npm start` runs the gateway with, read from the repository's package.json (see
 * docs/operations.md, "The V8 heap setting": on Node 20, without a floor under the old generation's
 * allocation limit, the bytes of a large upload or download can start a full mark-compact every 50–80 ms).
 * Benchmarks of the gateway's byte paths start their servers with these, so they measure what `npm start`
 * runs.
 */
export const gatewayNodeOptions: readonly string[] = startNodeOptions(new URL('../../package.json', import.meta.url));

/** The Node options of the `start` script of the package.json at `manifest`. */
export function startNodeOptions(manifest: URL): string[] {
  return nodeOptionsOfScript((JSON.parse(readFileSync(manifest, 'utf8')) as { scripts: { start: string } }).scripts.start);
}

/**
 * Starts a benchmark target in its own Node process (so the load generator does not share its event
 * loop) and waits for the one JSON line it prints: `{"url": "...", ...}`. `nodeArgs` and then
 * {@link benchNodeOptions} go to Node before the script.
 */
export async function startChildServer(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}, nodeArgs: readonly string[] = []): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, ['--conditions=@berth/source', ...nodeArgs, ...benchNodeOptions(), '--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: child.stdout! });
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s`)), 60_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as Record<string, unknown>);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before starting`)));
  });
  return {
    url: String(info.url),
    pid: child.pid!,
    info,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
