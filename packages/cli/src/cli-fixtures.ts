/**
 * Test support for the CLI's end-to-end tests: a real gateway on a loopback port (memory storage, API
 * keys, simulated GPUX replicas, queue workers), `berth` run in process against it, and `berth` run as
 * its own process (optionally under a pseudo-terminal through util-linux `script`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createGateway, queueWorkers, servingOptions, type Gateway } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { serveGateway, type RunningServer } from '@berth/plugin-transport-fastify';
import { run } from './cli.js';
import { memoryStream } from './io.js';

export const adminKey = 'cli-test-admin-key-0123456789';
export const account = 'acme';
const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const binPath = fileURLToPath(new URL('./bin.ts', import.meta.url));

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliGateway {
  gateway: Gateway;
  server: RunningServer;
  url: string;
  /** A temporary directory (config file, upload files); removed by close(). */
  dir: string;
  /** The environment a command gets: base URL, account and key of the test gateway, config file in `dir`. */
  env: { BERTH_BASE_URL: string; BERTH_ACCOUNT: string; BERTH_API_KEY: string; BERTH_CONFIG: string };
  /** `berth …argv` in this process; `tty` makes standard output a terminal, `stdin` feeds standard input. */
  berth(argv: string[], options?: { tty?: boolean; env?: Record<string, string | undefined>; stdin?: string }): Promise<Result>;
  close(): Promise<void>;
}

/** Largest dataset file the test gateway takes (small, so a refused upload is cheap to test). */
export const maxDatasetFileBytes = 1024 * 1024;

export async function startCliGateway(options: { maxDatasetFileBytes?: number } = {}): Promise<CliGateway> {
  const gateway = createGateway({
    plugins: [
      memoryStorage(),
      queueWorkers({ pollIntervalMs: 20 }),
      apiKeyAuth({ cacheTtlMs: 0 }),
      gpuxRuntime({ provisioner: { kind: 'simulated', delays: { schedulingMs: 30, downloadingMs: 60, initializingMs: 30 } } }),
      servingOptions({ pollIntervalMs: 50 }),
    ],
    config: { bootstrapAccountId: account, bootstrapApiKey: adminKey, maxDatasetFileBytes: options.maxDatasetFileBytes ?? maxDatasetFileBytes },
  });
  await gateway.start();
  const server = await serveGateway(gateway);
  const dir = mkdtempSync(join(tmpdir(), 'berth-cli-'));
  const env = { BERTH_BASE_URL: server.url, BERTH_ACCOUNT: account, BERTH_API_KEY: adminKey, BERTH_CONFIG: join(dir, 'config.json') };
  return {
    gateway,
    server,
    url: server.url,
    dir,
    env,
    async berth(argv, options = {}) {
      const stdout = memoryStream({ isTTY: options.tty ?? false, columns: 100 });
      const stderr = memoryStream({ isTTY: false });
      const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]);
      const code = await run(argv, { stdout, stderr, stdin, env: { ...env, ...options.env }, homeDir: dir });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    },
    async close() {
      await server.close();
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether util-linux `script` is installed (it gives a command a pseudo-terminal). */
export const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * `berth …argv` as its own Node process (the bin through tsx). With `tty`, under `script -qfec` so its
 * standard input and output are a pseudo-terminal; `input` is written to its standard input.
 */
export function spawnBerth(argv: string[], options: { env: Record<string, string>; tty?: boolean; input?: string }): Promise<Result> {
  const node = [process.execPath, '--import', 'tsx', binPath, ...argv];
  const [command, args] = options.tty
    ? ['script', ['-qfec', node.map(shellQuote).join(' '), '/dev/null']]
    : [node[0]!, node.slice(1)];
  return new Promise((done, fail) => {
    const child = spawn(command as string, args as string[], { cwd: repoRoot, env: { ...process.env, ...options.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
