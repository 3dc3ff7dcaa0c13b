/** A point of a reward curve: the epoch or step (`x`) and the mean reward there. */
export interface RewardPoint {
  readonly x: number;
  readonly reward: number;
}

export interface RewardSeries {
  readonly name: string;
  readonly points: readonly RewardPoint[];
}

/** What a job's `outputMetrics` gives to draw: one or more reward series over epochs or steps, and a line about the run. */
export interface RewardCurves {
  readonly axis: 'epoch' | 'step';
  readonly series: readonly RewardSeries[];
  readonly summary?: string;
}

interface BerthMetrics {
  readonly trainer?: string;
  readonly steps?: number;
  readonly epochs?: number;
  readonly rewardCurve?: readonly { epoch?: number; trainReward?: number; evaluationReward?: number }[];
  readonly currentEpoch?: { epoch?: number; trainReward?: number };
  readonly lastStep?: Record<string, unknown>;
}

const rewardKeys = ['reward', 'meanReward', 'rewardMean', 'avgReward', 'averageReward', 'mean_reward', 'train/reward'];
const stepKeys = ['step', 'trainingStep', 'globalStep', 'global_step'];

/**
 * The reward curves in a reinforcement fine-tuning job's `outputMetrics` (a string). Berth's own form
 * (docs/rft-jobs.md) gives the mean training reward per epoch, the running epoch's mean so far, and the
 * evaluation reward per epoch. Other trainers' forms are read too: an array of per-step records (or one
 * under `steps`, `history`, `metrics` or `points`), or JSON lines, each with a step (`step`; its position
 * when absent) and a reward (`reward`, `meanReward`, …). Anything else gives undefined: the page then
 * shows the text as it is.
 */
export function rewardCurves(outputMetrics: string | undefined): RewardCurves | undefined {
  if (!outputMetrics || outputMetrics.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(outputMetrics);
  } catch {
    try {
      parsed = outputMetrics.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);
    } catch {
      return undefined;
    }
  }
  if (parsed && typeof parsed === 'object' && Array.isArray((parsed as BerthMetrics).rewardCurve)) return berthCurves(parsed as BerthMetrics);
  const points = stepPoints(recordsOf(parsed) ?? []);
  return points.length > 0 ? { axis: 'step', series: [{ name: 'reward', points }] } : undefined;
}

function berthCurves(metrics: BerthMetrics): RewardCurves | undefined {
  const epochs = metrics.rewardCurve ?? [];
  const train = epochs.flatMap((e) => (isNumber(e.epoch) && isNumber(e.trainReward) ? [{ x: e.epoch, reward: e.trainReward }] : []));
  const current = metrics.currentEpoch;
  if (current && isNumber(current.epoch) && isNumber(current.trainReward)) train.push({ x: current.epoch, reward: current.trainReward });
  const evaluation = epochs.flatMap((e) => (isNumber(e.epoch) && isNumber(e.evaluationReward) ? [{ x: e.epoch, reward: e.evaluationReward }] : []));
  const series = [{ name: 'training reward', points: train }, { name: 'evaluation reward', points: evaluation }].filter((s) => s.points.length > 0);
  const lastStep = Object.entries(metrics.lastStep ?? {}).filter(([, value]) => isNumber(value)).map(([key, value]) => `${key} ${Number(value).toPrecision(3)}`);
  const summary = [
    metrics.trainer ? `${metrics.trainer} trainer` : '',
    isNumber(metrics.steps) ? `${metrics.steps} steps` : '',
    current && isNumber(current.epoch) && isNumber(metrics.epochs) ? `epoch ${current.epoch} of ${metrics.epochs} running` : '',
    lastStep.length > 0 ? `last step: ${lastStep.join(', ')}` : '',
  ].filter((part) => part !== '').join(' · ');
  if (series.length === 0 && summary === '') return undefined;
  return { axis: 'epoch', series, ...(summary ? { summary } : {}) };
}

function stepPoints(records: readonly unknown[]): RewardPoint[] {
  const points: RewardPoint[] = [];
  records.forEach((record, index) => {
    if (!record || typeof record !== 'object') return;
    const fields = record as Record<string, unknown>;
    const reward = firstNumber(fields, rewardKeys);
    if (reward !== undefined) points.push({ x: firstNumber(fields, stepKeys) ?? index + 1, reward });
  });
  return points.sort((a, b) => a.x - b.x);
}

function recordsOf(value: unknown): readonly unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object') {
    for (const key of ['steps', 'history', 'metrics', 'points']) {
      const inner = (value as Record<string, unknown>)[key];
      if (Array.isArray(inner)) return inner;
    }
  }
  return undefined;
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function firstNumber(fields: Record<string, unknown>, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = fields[key];
    if (isNumber(value)) return value;
  }
  return undefined;
}
