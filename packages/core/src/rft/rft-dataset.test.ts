import { describe, expect, it } from 'vitest';
import { chunkRanges, parseRlRow, RlRowProblem, splitRows, type RlRow } from './rft-dataset.js';
import { rewardPlateaued } from './rft-metrics.js';

function rows(count: number): RlRow[] {
  return Array.from({ length: count }, (_, index) => ({ index, row: { messages: [{ role: 'user', content: `q${index}` }] } }));
}

describe('RL rows', () => {
  it('takes messages plus ground-truth fields, and names the first row that is not RL', () => {
    expect(parseRlRow('{"messages":[{"role":"user","content":"2+2?"}],"ground_truth":"4"}', 0).row).toEqual({ messages: [{ role: 'user', content: '2+2?' }], ground_truth: '4' });
    for (const [line, reason] of [
      ['nope', 'is not JSON'], ['[1]', 'is not a JSON object'], ['{"prompt":"x"}', 'has no "messages"'], ['{"messages":[]}', 'has no "messages"'],
      ['{"messages":["hi"]}', 'messages[0] is not a chat message'], ['{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}', 'ends with an assistant message'],
    ] as const) {
      expect(() => parseRlRow(line, 4), line).toThrow(RlRowProblem);
      expect(() => parseRlRow(line, 4), line).toThrow(`row 5: ${reason}`);
    }
  });

  it('carves every tenth row into the evaluation set', () => {
    const split = splitRows(rows(25), { carveout: true });
    expect(split.evaluation.map((r) => r.index)).toEqual([9, 19]);
    expect(split.train).toHaveLength(23);
    expect(splitRows(rows(9), { carveout: true }).evaluation).toHaveLength(0);
    const separate = splitRows(rows(5), { carveout: false, evaluation: rows(2) });
    expect([separate.train.length, separate.evaluation.length]).toEqual([5, 2]);
  });

  it('chunks only datasets of more than 300 rows (chunkSize, default 200); smaller ones in one chunk', () => {
    expect(chunkRanges(splitRows(rows(1000), { carveout: false }), 300)).toEqual([[0, 300], [300, 600], [600, 900], [900, 1000]]);
    expect(chunkRanges(splitRows(rows(301), { carveout: false }), undefined)).toEqual([[0, 200], [200, 301]]);
    expect(chunkRanges(splitRows(rows(300), { carveout: false }), 10)).toEqual([[0, 300]]);
    // The threshold counts the dataset's rows, before the carve-out.
    expect(chunkRanges(splitRows(rows(320), { carveout: true }), 100)).toEqual([[0, 100], [100, 200], [200, 288]]);
  });
});

describe('early stopping', () => {
  it('stops when each of the last 3 epochs failed to beat the best earlier reward by 0.01', () => {
    const epochs = (rewards: number[], evaluation?: number[]) => rewards.map((train, epoch) => ({ epoch, train, ...(evaluation ? { evaluation: evaluation[epoch]! } : {}) }));
    expect(rewardPlateaued(epochs([0.5, 0.5, 0.5]))).toBe(false);
    expect(rewardPlateaued(epochs([0.5, 0.5, 0.505, 0.4]))).toBe(true);
    expect(rewardPlateaued(epochs([0.5, 0.5, 0.52, 0.4]))).toBe(false);
    expect(rewardPlateaued(epochs([0.1, 0.2, 0.3, 0.4, 0.4, 0.4, 0.4]))).toBe(true);
    // The evaluation set's reward decides when there is one.
    expect(rewardPlateaued(epochs([0.1, 0.2, 0.3, 0.4], [0.5, 0.5, 0.5, 0.5]))).toBe(true);
  });
});
