/** A point of a job's reward curve: the training step and the mean reward of its rollouts. */
export interface RewardPoint {
  readonly step: number;
  readonly reward: number;
}

const rewardKeys = ['reward', 'meanReward', 'rewardMean', 'avgReward', 'averageReward', 'mean_reward', 'train/reward'];
const stepKeys = ['step', 'trainingStep', 'globalStep', 'global_step'];

/**
 * The reward curve in a reinforcement fine-tuning job's `outputMetrics` (a string). Read as JSON: an array of
 * per-step records, or an object holding one (under `steps`, `history`, `metrics` or `points`); or as JSON
 * lines, one record per line. A record gives its step (`step`; its position when absent) and its reward
 * (`reward`, `meanReward`, …). Anything else gives no points: the page then shows the text as it is.
 */
export function rewardCurve(outputMetrics: string | undefined): RewardPoint[] {
  if (!outputMetrics || outputMetrics.trim() === '') return [];
  let records: unknown[] | undefined;
  try {
    records = recordsOf(JSON.parse(outputMetrics));
  } catch {
    try {
      records = outputMetrics.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);
    } catch {
      return [];
    }
  }
  const points: RewardPoint[] = [];
  (records ?? []).forEach((record, index) => {
    if (!record || typeof record !== 'object') return;
    const fields = record as Record<string, unknown>;
    const reward = firstNumber(fields, rewardKeys);
    if (reward === undefined) return;
    points.push({ step: firstNumber(fields, stepKeys) ?? index + 1, reward });
  });
  return points.sort((a, b) => a.step - b.step);
}

function recordsOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object') {
    for (const key of ['steps', 'history', 'metrics', 'points']) {
      const inner = (value as Record<string, unknown>)[key];
      if (Array.isArray(inner)) return inner;
    }
  }
  return undefined;
}

function firstNumber(fields: Record<string, unknown>, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = fields[key];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  return undefined;
}
