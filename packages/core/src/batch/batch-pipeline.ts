/**
 * The RUNNING loop of a batch job, without storage: rows are sent with bounded concurrency as one
 * stream (no pause between chunks), and the longest answered prefix of the input is committed as a chunk
 * whenever it reaches `chunkSize` rows or `commitIntervalMs` passed, so progress moves at least that often
 * while rows are being answered. Rows answered past an unanswered one wait for it (a chunk is always a
 * contiguous run of input rows, which is what lets a resumed run skip exactly the committed rows).
 */

/** Thrown by `runRow` when the job stopped before the row was sent: the row is not processed. */
export class RowStoppedError extends Error {}

export interface PipelineRow {
  /** 1-based position of the row among the input's non-blank lines. */
  readonly number: number;
  readonly line: string;
}

export interface PipelineOptions<O> {
  /** The rows to run after the committed ones, in input order. */
  readonly rows: AsyncIterator<PipelineRow>;
  readonly concurrency: number;
  readonly chunkSize: number;
  readonly commitIntervalMs: number;
  /** Aborted when the job must stop: no further row is started. */
  readonly stop: AbortSignal;
  /** True when a chunk may still be committed after the stop (a cancel keeps answered rows; a lost lease does not). */
  readonly commitAfterStop: () => boolean;
  runRow(row: PipelineRow): Promise<O>;
  /** Commits the outcomes of the next contiguous rows; answers false when the job no longer runs (stops the pipeline). */
  commit(outcomes: readonly O[]): Promise<boolean>;
}

/** Runs the pipeline to the end of the input or the stop. Rejects with the first commit or row failure. */
export async function runPipeline<O>(options: PipelineOptions<O>): Promise<void> {
  const { concurrency, chunkSize, stop } = options;
  const window = Math.max(chunkSize * 2, concurrency * 2);
  const answered = new Map<number, O>();
  let dispatched = 0;
  let committed = 0;
  let failure: unknown;
  let lanesDone = false;
  /** Set when a commit answered that the job no longer runs: nothing more is committed. */
  let jobStopped = false;
  let waiters: (() => void)[] = [];
  let wakeCommitter: (() => void) | undefined;
  const halt = new AbortController();
  const release = () => {
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };
  const onStop = () => {
    halt.abort();
    release();
    wakeCommitter?.();
  };
  stop.addEventListener('abort', onStop);
  const fail = (error: unknown) => {
    failure ??= error;
    halt.abort();
    release();
    wakeCommitter?.();
  };

  const lane = async (): Promise<void> => {
    for (;;) {
      while (!halt.signal.aborted && dispatched - committed >= window) await new Promise<void>((resolve) => waiters.push(resolve));
      if (halt.signal.aborted) return;
      const index = dispatched;
      dispatched += 1;
      const next = await options.rows.next();
      if (next.done) {
        dispatched -= 1;
        return;
      }
      try {
        answered.set(index, await options.runRow(next.value));
      } catch (error) {
        if (error instanceof RowStoppedError) {
          halt.abort();
          release();
          return;
        }
        fail(error);
        return;
      }
      if (answered.size >= chunkSize) wakeCommitter?.();
    }
  };

  const commitPrefix = async (): Promise<void> => {
    const outcomes: O[] = [];
    for (let index = committed; answered.has(index); index += 1) outcomes.push(answered.get(index) as O);
    if (outcomes.length === 0 || jobStopped) return;
    if ((stop.aborted || halt.signal.aborted) && !options.commitAfterStop()) return;
    const running = await options.commit(outcomes);
    for (let index = committed; index < committed + outcomes.length; index += 1) answered.delete(index);
    committed += outcomes.length;
    release();
    if (!running) {
      jobStopped = true;
      halt.abort();
      release();
    }
  };

  const committer = (async () => {
    while (!lanesDone && failure === undefined) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, options.commitIntervalMs);
        function done(): void {
          clearTimeout(timer);
          wakeCommitter = undefined;
          resolve();
        }
        wakeCommitter = done;
      });
      if (lanesDone || failure !== undefined) break;
      try {
        await commitPrefix();
      } catch (error) {
        fail(error);
      }
    }
  })();

  try {
    // The rows are shared; an async generator queues concurrent `next` calls, so each row goes to one lane.
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
    lanesDone = true;
    wakeCommitter?.();
    await committer;
    if (failure === undefined) await commitPrefix();
  } finally {
    stop.removeEventListener('abort', onStop);
  }
  if (failure !== undefined) throw failure;
}
