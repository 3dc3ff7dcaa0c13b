import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { sandboxChildSource } from './sandbox-child-source.js';
import { detectSandboxHost, killSandboxed, sandboxCommand, spawnSandboxed, type SandboxHost } from './sandbox-command.js';

/** One call into a JavaScript sandbox. */
export interface SandboxCall {
  /** Identifies `source`: a process compiles it once and keeps it under this key. */
  readonly key: string;
  /** Defines `__berthModule` in the context (see `compileJavaScriptCriterion`). */
  readonly source: string;
  readonly filename: string;
  /** The function's argument, as JSON. */
  readonly input: string;
  readonly timeoutMs: number;
}

/** The outcome of a call: the context's answer (JSON text), or why there is none. */
export type SandboxReply =
  | { readonly ok: true; readonly result: string }
  | { readonly ok: false; readonly code: 'TIMEOUT' | 'MEMORY' | 'CRASHED' | 'THREW' | 'COMPILE' | 'NO_RESULT' | 'INVALID_RESULT'; readonly message: string };

export interface SandboxPoolOptions {
  /** Directory the pool owns: its program and one scratch directory per process. */
  readonly directory: string;
  /** Warm processes kept, each running one call at a time. */
  readonly size: number;
  readonly memoryMb: number;
  /** Added to a call's time limit before its process is killed (the in-process limit fires first). */
  readonly killGraceMs: number;
  /** Largest answer line, bytes; a process that writes more is killed. */
  readonly maxReplyBytes: number;
  readonly host?: SandboxHost;
}

interface Pending {
  readonly call: SandboxCall | { readonly op: 'selfcheck' };
  readonly resolve: (reply: SandboxReply) => void;
}

let workerCounter = 0;

/** One warm sandbox process. */
class SandboxWorker {
  readonly child: ChildProcess;
  private readonly known = new Set<string>();
  private buffer = '';
  private stderr = '';
  private current: { id: number; pending: Pending; timer: NodeJS.Timeout; sentSource: boolean } | undefined;
  private nextId = 0;
  private killedFor: SandboxReply | undefined;
  dead = false;

  constructor(
    private readonly options: SandboxPoolOptions & { readonly host: SandboxHost; readonly script: string },
    private readonly onIdle: (worker: SandboxWorker) => void,
    private readonly onDead: (worker: SandboxWorker) => void,
  ) {
    workerCounter += 1;
    const scratch = join(options.directory, `scratch-${process.pid}-${workerCounter}`);
    mkdirSync(scratch, { recursive: true, mode: 0o700 });
    const { command, args } = sandboxCommand({ script: options.script, scratch, memoryMb: options.memoryMb, host: options.host });
    this.child = spawnSandboxed(command, args, scratch);
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4096);
    });
    this.child.stdin?.on('error', () => undefined);
    this.child.on('error', () => this.onExit(null, null));
    this.child.on('exit', (code, signal) => this.onExit(code, signal));
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  start(pending: Pending): void {
    this.nextId += 1;
    const id = this.nextId;
    const call = pending.call;
    let message: Record<string, unknown>;
    let sentSource = false;
    let timeoutMs = 5_000;
    if ('op' in call) message = { id, op: call.op };
    else {
      sentSource = !this.known.has(call.key);
      timeoutMs = call.timeoutMs;
      message = { id, key: call.key, input: call.input, timeoutMs, ...(sentSource ? { source: call.source, filename: call.filename } : {}) };
    }
    const timer = setTimeout(() => {
      this.kill({ ok: false, code: 'TIMEOUT', message: `the evaluator ran past its time limit of ${timeoutMs} ms and its process was killed` });
    }, timeoutMs + this.options.killGraceMs);
    this.current = { id, pending, timer, sentSource };
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** Kills the process; the call it runs gets `reply`. */
  kill(reply: SandboxReply): void {
    this.killedFor ??= reply;
    killSandboxed(this.child);
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > this.options.maxReplyBytes) {
      this.kill({ ok: false, code: 'INVALID_RESULT', message: `the evaluator's answer is larger than ${this.options.maxReplyBytes} bytes` });
      return;
    }
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    const current = this.current;
    let answer: { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
    try {
      answer = JSON.parse(line) as typeof answer;
    } catch {
      this.kill({ ok: false, code: 'CRASHED', message: 'the sandbox process answered something that is not JSON' });
      return;
    }
    if (current === undefined || answer.id !== current.id) return;
    const call = current.pending.call;
    if (answer.error?.code === 'MISSING_SOURCE' && !('op' in call)) {
      // The process evicted the compiled source: send it again with the source.
      clearTimeout(current.timer);
      this.current = undefined;
      this.known.delete(call.key);
      this.start(current.pending);
      return;
    }
    clearTimeout(current.timer);
    this.current = undefined;
    if (!('op' in call)) this.known.add(call.key);
    if (typeof answer.result === 'string') current.pending.resolve({ ok: true, result: answer.result });
    else {
      const code = String(answer.error?.code ?? 'CRASHED');
      const known = ['TIMEOUT', 'THREW', 'COMPILE', 'NO_RESULT'] as const;
      const replyCode = (known as readonly string[]).includes(code) ? (code as (typeof known)[number]) : 'CRASHED';
      current.pending.resolve({ ok: false, code: replyCode, message: String(answer.error?.message ?? 'no answer') });
    }
    this.onIdle(this);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.dead) return;
    this.dead = true;
    const current = this.current;
    this.current = undefined;
    if (current) {
      clearTimeout(current.timer);
      current.pending.resolve(this.killedFor ?? this.exitReply(code, signal));
    }
    this.onDead(this);
  }

  private exitReply(code: number | null, signal: NodeJS.Signals | null): SandboxReply {
    if (/heap out of memory|Allocation failed|invalid array length/i.test(this.stderr) || signal === 'SIGABRT' || signal === 'SIGTRAP') {
      return { ok: false, code: 'MEMORY', message: `the evaluator exhausted its memory limit of ${this.options.memoryMb} MiB and its process was stopped` };
    }
    return { ok: false, code: 'CRASHED', message: `the sandbox process ended (${signal ?? `exit code ${code}`})` };
  }
}

/**
 * Warm JavaScript sandbox processes: up to `size` calls run at once, one per process; more wait in
 * order. A process that is killed (time limit passed, memory exhausted, answer too large) or dies is
 * replaced by a fresh one on the next call, so one bad evaluator never affects the next rollout.
 */
export class SandboxPool {
  private readonly options: SandboxPoolOptions & { readonly host: SandboxHost; readonly script: string };
  private readonly workers = new Set<SandboxWorker>();
  private readonly idle: SandboxWorker[] = [];
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(options: SandboxPoolOptions) {
    mkdirSync(options.directory, { recursive: true, mode: 0o700 });
    const script = join(options.directory, 'sandbox.cjs');
    writeFileSync(script, sandboxChildSource, { mode: 0o600 });
    this.options = { ...options, host: options.host ?? detectSandboxHost(), script };
  }

  get host(): SandboxHost {
    return this.options.host;
  }

  /** Runs one call. Never rejects: every failure is a reply. */
  run(call: SandboxCall): Promise<SandboxReply> {
    return this.submit(call);
  }

  /** What the host realm of a sandbox process can still reach (for tests). */
  selfCheck(): Promise<SandboxReply> {
    return this.submit({ op: 'selfcheck' });
  }

  /** Kills every process; calls still waiting get CRASHED. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.resolve({ ok: false, code: 'CRASHED', message: 'the evaluator runner is closed' });
    const exits = [...this.workers].map((worker) => new Promise<void>((resolve) => {
      if (worker.dead) resolve();
      else {
        worker.child.once('exit', () => resolve());
        worker.kill({ ok: false, code: 'CRASHED', message: 'the evaluator runner is closed' });
      }
    }));
    await Promise.all(exits);
  }

  private submit(call: Pending['call']): Promise<SandboxReply> {
    if (this.closed) return Promise.resolve({ ok: false, code: 'CRASHED', message: 'the evaluator runner is closed' });
    return new Promise((resolve) => {
      this.queue.push({ call, resolve });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let worker = this.idle.pop();
      while (worker !== undefined && worker.dead) worker = this.idle.pop();
      if (worker === undefined) {
        if (this.workers.size >= this.options.size) return;
        worker = new SandboxWorker(this.options, (w) => this.release(w), (w) => this.remove(w));
        this.workers.add(worker);
      }
      worker.start(this.queue.shift()!);
    }
  }

  private release(worker: SandboxWorker): void {
    if (!worker.dead && !worker.busy) this.idle.push(worker);
    this.dispatch();
  }

  private remove(worker: SandboxWorker): void {
    this.workers.delete(worker);
    const index = this.idle.indexOf(worker);
    if (index >= 0) this.idle.splice(index, 1);
    if (!this.closed) this.dispatch();
  }
}
