import { describe, expect, it } from 'vitest';
import { rewardCurves } from './metrics.ts';

describe('rewardCurves', () => {
  it("reads Berth's outputMetrics: training reward per epoch with the running epoch, evaluation reward, and a summary", () => {
    const metrics = {
      trainer: 'reference', steps: 3, epochs: 4,
      rewardCurve: [{ epoch: 1, trainReward: 0.25, evaluationReward: 0.2 }, { epoch: 2, trainReward: 0.5 }],
      currentEpoch: { epoch: 3, trainReward: 0.625, scoredRollouts: 8 },
      lastStep: { loss: 0.12345, note: 'x' },
    };
    expect(rewardCurves(JSON.stringify(metrics))).toEqual({
      axis: 'epoch',
      series: [
        { name: 'training reward', points: [{ x: 1, reward: 0.25 }, { x: 2, reward: 0.5 }, { x: 3, reward: 0.625 }] },
        { name: 'evaluation reward', points: [{ x: 1, reward: 0.2 }] },
      ],
      summary: 'reference trainer · 3 steps · epoch 3 of 4 running · last step: loss 0.123',
    });
  });

  it("gives Berth's form before its first epoch as a summary without series", () => {
    expect(rewardCurves(JSON.stringify({ trainer: 'reference', steps: 0, epochs: 2, rewardCurve: [] }))).toEqual({
      axis: 'epoch', series: [], summary: 'reference trainer · 0 steps',
    });
  });

  it('reads per-step records from other trainers: arrays, nested arrays and JSON lines, sorted; a missing step is the position', () => {
    expect(rewardCurves(JSON.stringify([{ step: 2, reward: 0.5 }, { step: 1, meanReward: 0.25 }]))?.series).toEqual([
      { name: 'reward', points: [{ x: 1, reward: 0.25 }, { x: 2, reward: 0.5 }] },
    ]);
    expect(rewardCurves(JSON.stringify({ history: [{ rewardMean: 0.1 }, { rewardMean: 0.3 }] }))?.series[0]?.points).toEqual([
      { x: 1, reward: 0.1 },
      { x: 2, reward: 0.3 },
    ]);
    expect(rewardCurves('{"globalStep": 5, "avgReward": 1}\n{"globalStep": 6, "avgReward": 0.9}\n')?.series[0]?.points).toEqual([
      { x: 5, reward: 1 },
      { x: 6, reward: 0.9 },
    ]);
  });

  it('gives nothing for text it cannot read or records without a reward', () => {
    expect(rewardCurves(undefined)).toBeUndefined();
    expect(rewardCurves('loss went down')).toBeUndefined();
    expect(rewardCurves(JSON.stringify({ loss: 0.2 }))).toBeUndefined();
    expect(rewardCurves(JSON.stringify([{ step: 1, loss: 0.2 }, { step: 2, reward: 'high' }]))).toBeUndefined();
  });
});
