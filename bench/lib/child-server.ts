import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildServer {
  readonly url: string;
  /** Process id of the server, e.g. to pin it to a CPU. */
  readonly pid: number;
  readonly info: Record<string, unknown>;
  stop(): Promise<void>;
}

/**
 * Starts a benchmark target in its own Node process (so the load generator does not share its event
 * loop) and waits for the one JSON line it prints: `{"url": "...", ...}`.
 */
export async function startChildServer(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}, nodeArgs: readonly string[] = []): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, ['--conditions=@berth/source', ...nodeArgs, '--import', 'tsx', script, ...args], {
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
