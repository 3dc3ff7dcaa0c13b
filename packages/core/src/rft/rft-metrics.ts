/**
 * What a reinforcement fine-tuning job shows while it runs (`outputMetrics`, `outputStats`) and the early
 * stopping rule.
 */
import type { RftEpochRewards, RftRunRecord } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-runs.js';

/** Early stopping: epochs without improvement after which a job stops (JOB_STATE_EARLY_STOPPED). */
export const earlyStoppingPatience = 3;
/** The least rise of the best mean reward that counts as an improvement. */
export const earlyStoppingMinDelta = 0.01;

/** The reward an epoch is judged by: the evaluation set's when there is one, else the training rollouts'. */
function judged(epoch: RftEpochRewards): number | undefined {
  return epoch.evaluation ?? epoch.train;
}

/**
 * Reward plateau: true when each of the last {@link earlyStoppingPatience} finished epochs failed to raise
 * the best mean reward of the epochs before them by {@link earlyStoppingMinDelta} (the evaluation set's
 * reward when the job has one, else the training rollouts'). Needs more than `patience` epochs.
 */
export function rewardPlateaued(epochs: readonly RftEpochRewards[], patience = earlyStoppingPatience, minDelta = earlyStoppingMinDelta): boolean {
  const rewards = epochs.map(judged);
  if (rewards.length <= patience || rewards.some((r) => r === undefined)) return false;
  const before = rewards.slice(0, rewards.length - patience) as number[];
  const recent = rewards.slice(rewards.length - patience) as number[];
  return Math.max(...recent) < Math.max(...before) + minDelta;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * `outputMetrics`: a JSON object with the trainer's name, the steps applied, the mean reward per finished
 * epoch on the training rollouts and the evaluation set (`rewardCurve`), the running epoch's mean so far
 * and the last step's own metrics (e.g. `loss`).
 */
export function outputMetrics(run: RftRunRecord, trainer: string, epochs: number): string {
  const current = run.epochRewardCount > 0 ? round(run.epochRewardSum / run.epochRewardCount) : undefined;
  return JSON.stringify({
    trainer,
    steps: run.step,
    epochs,
    rewardCurve: run.epochs.map((e) => ({
      epoch: e.epoch + 1,
      ...(e.train !== undefined ? { trainReward: round(e.train) } : {}),
      ...(e.evaluation !== undefined ? { evaluationReward: round(e.evaluation) } : {}),
    })),
    ...(current !== undefined && run.epoch < epochs ? { currentEpoch: { epoch: run.epoch + 1, trainReward: current, scoredRollouts: run.epochRewardCount } } : {}),
    ...(run.lastStepMetrics ? { lastStep: run.lastStepMetrics } : {}),
  });
}

/** `outputStats`: the rollouts of the whole job in numbers (a JSON object). */
export function outputStats(progress: { processed: number; scored: number; failed: number; inputTokens: number; outputTokens: number }, run: RftRunRecord): string {
  const last = run.epochs[run.epochs.length - 1];
  return JSON.stringify({
    rollouts: progress.processed, scoredRollouts: progress.scored, failedRollouts: progress.failed,
    inputTokens: progress.inputTokens, outputTokens: progress.outputTokens, trainingSteps: run.step,
    ...(run.toolCalls !== undefined ? { toolCalls: run.toolCalls, failedToolCalls: run.failedToolCalls ?? 0 } : {}),
    ...(last?.train !== undefined ? { finalTrainReward: round(last.train) } : {}),
    ...(last?.evaluation !== undefined ? { finalEvaluationReward: round(last.evaluation) } : {}),
  });
}
