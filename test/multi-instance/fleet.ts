import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';

/** A JSON answer of one HTTP call. */
export interface Answer { status: number; body: Record<string, unknown> }

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Three gateway processes, each restartable under a new worker id (so a lease names the incarnation that took it). */
export class Fleet {
  private readonly slots: (GatewayProcess | undefined)[] = [];
  private readonly workers = new Map<string, number>();
  private incarnations = 0;
  private readonly restarts: Promise<void>[] = [];

  constructor(
    private readonly hostScript: string,
    private readonly apiKey: string,
    private readonly env: NodeJS.ProcessEnv,
    /** How long a process may take to start (a loaded machine needs more than the default 30 s). */
    private readonly startTimeoutMs = 30_000,
  ) {}

  async start(slot: number): Promise<void> {
    this.incarnations += 1;
    const workerId = `p${slot}-${this.incarnations}`;
    this.workers.set(workerId, slot);
    this.slots[slot] = await startGatewayProcess({ ...this.env, BERTH_WORKER_ID: workerId }, this.hostScript, this.startTimeoutMs);
  }

  slotOf(workerId: string): number | undefined {
    return this.workers.get(workerId);
  }

  /** Slots whose process is up (not killed, not starting again). */
  live(): number[] {
    return this.slots.flatMap((p, slot) => (p !== undefined && p.child.exitCode === null && p.child.signalCode === null ? [slot] : []));
  }

  /** SIGKILLs the slot's process and starts it again; answers once it is killed (the restart runs on, see {@link settled}). */
  async kill(slot: number): Promise<void> {
    const victim = this.slots[slot];
    this.slots[slot] = undefined;
    await victim?.kill('SIGKILL');
    // A failed restart is reported by settled(), not as an unhandled rejection in between.
    const restart = this.start(slot);
    restart.catch(() => undefined);
    this.restarts.push(restart);
  }

  /** Waits for every restart begun so far. */
  async settled(): Promise<void> {
    await Promise.all(this.restarts);
  }

  /** One HTTP call on a live process, moving on to another when the one asked dies under the call. */
  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const until = Date.now() + 30_000;
    for (let i = 0; ; i += 1) {
      const live = this.live();
      const target = this.slots[live[i % Math.max(1, live.length)] ?? -1];
      try {
        if (!target) throw new Error('no live process');
        const response = await fetch(`${target.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${this.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      } catch (error) {
        if (Date.now() > until) throw error;
        await sleep(100);
      }
    }
  }

  async upload(account: string, dataset: string, jsonl: string): Promise<Answer> {
    const target = this.slots.find((p) => p !== undefined)!;
    const form = new FormData();
    form.append('file', new Blob([jsonl], { type: 'application/jsonl' }), 'rows.jsonl');
    const response = await fetch(`${target.url}/v1/accounts/${account}/datasets/${dataset}:upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${this.apiKey}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  logs(): string {
    return this.slots.map((p, slot) => `--- process ${slot}:\n${p?.log().slice(-4000) ?? '(down)'}`).join('\n');
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.restarts);
    await Promise.all(this.slots.map((p) => p?.kill('SIGKILL')));
  }
}

