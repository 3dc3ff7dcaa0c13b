import pg from 'pg';
import { startReferenceEngine, type ReferenceEngine, type ReferenceEngineOptions } from '@berth/core';
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


/** What every kill test sets up: a PostgreSQL pool, one reference engine and a fleet of gateway processes on a fresh schema. */
export interface KillRig {
  readonly schema: string;
  readonly pool: pg.Pool;
  readonly engine: ReferenceEngine;
  readonly fleet: Fleet;
  /** The slot of the process holding a live lease on the job's queue work, if any. */
  holderOf(jobName: string): Promise<number | undefined>;
  /**
   * Every `minMs` + up to `spreadMs`, SIGKILLs one process (and starts it again) while at least two are up: on
   * every other round the holder of `jobName`'s lease when it is live, else a random one; at most `maxKills`.
   * Each kill is recorded with `note()` taken just before it; `stop()` ends the rounds and waits for the restarts.
   */
  killer<N extends object>(jobName: string, options: { minMs: number; spreadMs: number; maxKills?: number; note: () => N }): {
    kills: Array<{ slot: number; holder: boolean } & N>;
    stop(): Promise<void>;
  };
  /** Stops the processes and the engine, drops the schema. */
  close(): Promise<void>;
}

/** Starts the pool, the engine and a (not yet started) fleet running `hostScript` on a schema named from `prefix`. */
export async function startKillRig(options: {
  databaseUrl: string; prefix: string; hostScript: string; apiKey: string; account: string; engine: ReferenceEngineOptions;
}): Promise<KillRig> {
  const schema = `${options.prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });
  const engine = await startReferenceEngine(options.engine);
  const fleet = new Fleet(options.hostScript, options.apiKey, {
    DATABASE_URL: options.databaseUrl, BERTH_DATABASE_SCHEMA: schema, BERTH_API_KEY: options.apiKey, BERTH_ACCOUNT_ID: options.account,
    ENGINE_URL: engine.url, BERTH_WORKER_CONCURRENCY: '4', BERTH_WORKER_POLL_INTERVAL_MS: '100', BERTH_DATABASE_POOL_SIZE: '6',
  }, 120_000);
  const holderOf = async (jobName: string): Promise<number | undefined> => {
    const { rows } = await pool.query(
      `SELECT worker_id FROM "${schema}".berth_jobs WHERE payload->>'name' = $1 AND state = 'leased' AND lease_expires_at > clock_timestamp()`, [jobName],
    );
    const worker = rows[0]?.worker_id as string | undefined;
    return worker === undefined ? undefined : fleet.slotOf(worker);
  };
  return {
    schema, pool, engine, fleet, holderOf,
    killer(jobName, { minMs, spreadMs, maxKills = Number.POSITIVE_INFINITY, note }) {
      let killing = true;
      const kills: Array<{ slot: number; holder: boolean } & ReturnType<typeof note>> = [];
      const rounds = (async () => {
        for (let i = 0; killing && kills.length < maxKills; i += 1) {
          await sleep(minMs + Math.random() * spreadMs);
          const live = fleet.live();
          // At least one process keeps serving while the killed ones start again.
          if (!killing || live.length < 2) continue;
          const holder = i % 2 === 0 ? await holderOf(jobName) : undefined;
          const slot = holder !== undefined && live.includes(holder) ? holder : live[Math.floor(Math.random() * live.length)]!;
          kills.push({ slot, holder: slot === holder, ...note() });
          await fleet.kill(slot);
        }
      })();
      return {
        kills,
        async stop() {
          killing = false;
          await rounds;
          await fleet.settled();
        },
      };
    },
    async close() {
      await fleet.stop();
      await engine.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}
