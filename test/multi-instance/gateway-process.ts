import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface GatewayProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** stderr so far (the gateway's JSON log), for failure messages. */
  log(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

const hostScript = fileURLToPath(new URL('./probe-host.ts', import.meta.url));

/** Starts `script` (default probe-host.ts) in its own Node process and waits for its `{"url"}` line. */
export async function startGatewayProcess(env: NodeJS.ProcessEnv, script: string = hostScript, startTimeoutMs = 30_000): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--conditions=@berth/source', '--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway process did not start within ${startTimeoutMs / 1000} s:\n${stderr}`)), startTimeoutMs);
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(String((JSON.parse(line) as { url: unknown }).url));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway process exited with ${code} before starting:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    log: () => stderr,
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(force);
    },
  };
}
