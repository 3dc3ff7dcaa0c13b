import { describe, expect, it } from 'vitest';
import { rewardCurve } from './metrics.ts';

describe('rewardCurve', () => {
  it('reads an array of step records, sorted by step', () => {
    expect(rewardCurve(JSON.stringify([{ step: 2, reward: 0.5 }, { step: 1, meanReward: 0.25 }]))).toEqual([
      { step: 1, reward: 0.25 },
      { step: 2, reward: 0.5 },
    ]);
  });

  it('reads records under steps/history/metrics/points, and JSON lines; a missing step is the position', () => {
    expect(rewardCurve(JSON.stringify({ steps: [{ rewardMean: 0.1 }, { rewardMean: 0.3 }] }))).toEqual([
      { step: 1, reward: 0.1 },
      { step: 2, reward: 0.3 },
    ]);
    expect(rewardCurve('{"globalStep": 5, "avgReward": 1}\n{"globalStep": 6, "avgReward": 0.9}\n')).toEqual([
      { step: 5, reward: 1 },
      { step: 6, reward: 0.9 },
    ]);
  });

  it('gives no points for text it cannot read or records without a reward', () => {
    expect(rewardCurve(undefined)).toEqual([]);
    expect(rewardCurve('loss went down')).toEqual([]);
    expect(rewardCurve(JSON.stringify({ loss: 0.2 }))).toEqual([]);
    expect(rewardCurve(JSON.stringify([{ step: 1, loss: 0.2 }, { step: 2, reward: 'high' }]))).toEqual([]);
  });
});
