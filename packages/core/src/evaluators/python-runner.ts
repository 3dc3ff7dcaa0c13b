import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pythonWrapperSource } from './python-wrapper-source.js';
import { killSandboxed, spawnSandboxed, type SandboxHost } from './sandbox-command.js';
import { normaliseFileName } from './compile-javascript.js';
import type { SandboxReply } from './sandbox-pool.js';

export interface PythonRunnerOptions {
  /** Directory the runner owns (its wrapper program and the per-call scratch directories). */
  readonly directory: string;
  /** The interpreter: a command looked up on the gateway's PATH once (default `python3`), or `false` for none. */
  readonly python: string | false;
  readonly memoryMb: number;
  readonly killGraceMs: number;
  readonly maxReplyBytes: number;
  readonly host: SandboxHost;
}

export interface PythonCall {
  readonly files: Readonly<Record<string, string>>;
  readonly entryFile: string;
  readonly entryFunc: string;
  /** The function's argument (sent as JSON). */
  readonly input: unknown;
  readonly timeoutMs: number;
}

/**
 * Runs Python criteria, one `python3` process per call (see `python-wrapper-source.ts` for the limits
 * inside). The interpreter's absolute path is found once with the gateway's PATH; the calls themselves
 * run with an empty environment.
 */
export class PythonRunner {
  private interpreter: Promise<string | undefined> | undefined;
  private readonly wrapper: string;

  constructor(private readonly options: PythonRunnerOptions) {
    this.wrapper = join(options.directory, 'python-sandbox.py');
    writeFileSync(this.wrapper, pythonWrapperSource, { mode: 0o600 });
  }

  /** The interpreter's absolute path, or undefined when Python is not available on this host. */
  available(): Promise<string | undefined> {
    const python = this.options.python;
    this.interpreter ??= python === false ? Promise.resolve(undefined) : resolveInterpreter(python);
    return this.interpreter;
  }

  /** Compiles the files (syntax check only, nothing runs). */
  async check(files: Readonly<Record<string, string>>): Promise<SandboxReply> {
    return this.run({ op: 'check' }, files, 10_000);
  }

  /** Runs the criterion's function on `call.input`. */
  async call(call: PythonCall): Promise<SandboxReply> {
    const cpuSeconds = Math.max(1, Math.ceil(call.timeoutMs / 1000));
    return this.run(
      { entryFile: call.entryFile, entryFunc: call.entryFunc, input: call.input, cpuSeconds, memoryBytes: this.options.memoryMb * 1024 * 1024 },
      call.files,
      call.timeoutMs,
    );
  }

  private async run(request: Record<string, unknown>, files: Readonly<Record<string, string>>, timeoutMs: number): Promise<SandboxReply> {
    const interpreter = await this.available();
    if (interpreter === undefined) return { ok: false, code: 'COMPILE', message: 'python3 is not available on this host' };
    const scratch = await mkdtemp(join(this.options.directory, 'py-'));
    try {
      for (const [rawName, text] of Object.entries(files)) {
        const name = normaliseFileName(rawName);
        if (name === undefined) return { ok: false, code: 'COMPILE', message: `file name "${rawName}" is not a relative path inside the evaluator` };
        await mkdir(dirname(join(scratch, name)), { recursive: true });
        await writeFile(join(scratch, name), text);
      }
      const args = [interpreter, '-I', '-B', this.wrapper];
      const [command, commandArgs] = this.options.host.networkNamespace ? ['unshare', ['-rn', '--', ...args]] : [interpreter, args.slice(1)];
      return await this.exchange(command as string, commandArgs as string[], scratch, JSON.stringify({ ...request, scratch }), timeoutMs);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private exchange(command: string, args: string[], scratch: string, input: string, timeoutMs: number): Promise<SandboxReply> {
    return new Promise((resolve) => {
      const child = spawnSandboxed(command, args, scratch);
      let stdout = '';
      let stderr = '';
      let verdict: SandboxReply | undefined;
      const timer = setTimeout(() => {
        verdict ??= { ok: false, code: 'TIMEOUT', message: `the evaluator ran past its time limit of ${timeoutMs} ms and its process was killed` };
        killSandboxed(child);
      }, timeoutMs + this.options.killGraceMs);
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.length > this.options.maxReplyBytes) {
          verdict ??= { ok: false, code: 'INVALID_RESULT', message: `the evaluator's answer is larger than ${this.options.maxReplyBytes} bytes` };
          killSandboxed(child);
        }
      });
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-4096);
      });
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input);
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(timer);
        if (verdict) return resolve(verdict);
        const line = stdout.split('\n').find((l) => l.trim() !== '');
        if (line !== undefined) return resolve({ ok: true, result: line });
        if (signal === 'SIGXCPU' || signal === 'SIGKILL') {
          return resolve({ ok: false, code: 'TIMEOUT', message: `the evaluator ran past its CPU time limit (${signal})` });
        }
        if (/MemoryError/.test(stderr)) return resolve({ ok: false, code: 'MEMORY', message: 'the evaluator exhausted its memory limit' });
        resolve({ ok: false, code: 'CRASHED', message: `the python process ended without an answer (${signal ?? `exit code ${code}`})${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}` });
      };
      child.on('error', () => finish(null, null));
      child.on('close', finish);
    });
  }
}

/** `python3`'s absolute path (found with the gateway's own PATH), or undefined. */
function resolveInterpreter(command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(command, ['-c', 'import sys; print(sys.executable)'], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve(code === 0 && out.trim() !== '' ? out.trim() : undefined));
  });
}
