import { describe, expect, it } from 'vitest';
import { RowStoppedError, runPipeline, type PipelineRow } from './batch-pipeline.js';

async function* linesOf(count: number, from = 1): AsyncGenerator<PipelineRow> {
  for (let i = from; i < from + count; i += 1) yield { number: i, line: `line ${i}` };
}

describe('batch pipeline', () => {
  it('commits contiguous prefixes of the input, every row once and in order, at most `concurrency` rows at once', async () => {
    const commits: number[][] = [];
    let inFlight = 0;
    let peak = 0;
    await runPipeline<number>({
      rows: linesOf(40, 11), concurrency: 3, chunkSize: 4, commitIntervalMs: 5, stop: new AbortController().signal, commitAfterStop: () => true,
      runRow: async (row: PipelineRow) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, (row.number * 7) % 5));
        inFlight -= 1;
        return row.number;
      },
      commit: async (outcomes) => {
        commits.push([...outcomes]);
        return true;
      },
    });
    expect(commits.flat()).toEqual(Array.from({ length: 40 }, (_, i) => i + 11));
    expect(peak).toBeLessThanOrEqual(3);
  });

  it('commits by time when a chunk is not full, so progress moves while a slow row holds the rest back', async () => {
    const commits: number[][] = [];
    let releaseSlow = () => {};
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const run = runPipeline<number>({
      rows: linesOf(6), concurrency: 2, chunkSize: 100, commitIntervalMs: 10, stop: new AbortController().signal, commitAfterStop: () => true,
      runRow: async (row) => {
        if (row.number === 3) await slow;
        return row.number;
      },
      commit: async (outcomes) => {
        commits.push([...outcomes]);
        return true;
      },
    });
    await expect.poll(() => commits.flat()).toEqual([1, 2]);
    releaseSlow();
    await run;
    expect(commits.flat()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('stops starting rows on stop or when a commit says the job stopped; a failed commit rejects', async () => {
    const stop = new AbortController();
    const started: number[] = [];
    await runPipeline<number>({
      rows: linesOf(100), concurrency: 2, chunkSize: 2, commitIntervalMs: 5, stop: stop.signal, commitAfterStop: () => false,
      runRow: async (row) => {
        if (stop.signal.aborted) throw new RowStoppedError('stopped');
        started.push(row.number);
        if (row.number === 5) stop.abort();
        return row.number;
      },
      commit: async () => true,
    });
    expect(started.length).toBeLessThan(10);
    let commits = 0;
    await runPipeline<number>({
      rows: linesOf(100), concurrency: 1, chunkSize: 2, commitIntervalMs: 1, stop: new AbortController().signal, commitAfterStop: () => true,
      runRow: async (row) => row.number,
      commit: async () => (commits += 1) < 2,
    });
    expect(commits).toBe(2);
    await expect(runPipeline<number>({
      rows: linesOf(100), concurrency: 1, chunkSize: 2, commitIntervalMs: 1, stop: new AbortController().signal, commitAfterStop: () => true,
      runRow: async (row) => row.number,
      commit: async () => {
        throw new Error('storage down');
      },
    })).rejects.toThrow('storage down');
  });
});
