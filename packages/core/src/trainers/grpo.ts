import { createPrng } from '../engine/generate.js';
import {
  loraInner, referenceHiddenSize, vocabularyIndexes, wordLogitBias, wordProbabilities, type ReferenceLoraWeights,
} from '../engine/reference-lora.js';
import { referenceVocabulary } from '../engine/vocabulary.js';
import { failedPrecondition } from '../errors/index.js';
import type { TrainerHyperparameters, TrainingGroup } from '../ports/trainer.js';

/** Added to a group's reward standard deviation before dividing (GRPO's epsilon). */
export const advantageEpsilon = 1e-4;
/** Gradients whose L2 norm exceeds this are scaled down to it before the update. */
export const maxGradNorm = 1;

/** `lossConfig.method` values the reference trainer runs, and how it normalises the policy-gradient term. */
const normalisations: Readonly<Record<string, 'sequence' | 'token'>> = {
  METHOD_UNSPECIFIED: 'sequence',
  GRPO: 'sequence',
  GSPO_TOKEN: 'sequence',
  DAPO: 'token',
};

export interface PolicyStep {
  readonly weights: ReferenceLoraWeights;
  readonly metrics: Readonly<Record<string, number>>;
}

/**
 * The first weights of a job's add-on, as LoRA starts: `lora_A` uniform in ±1/√hidden from a PRNG seeded
 * with `seed` (the job's name, so every instance starts alike), `lora_B` zero, so the add-on's word biases
 * start at 0 and the first policy is the base model's.
 */
export function initialReferenceLora(seed: string, rank: number, alpha: number): ReferenceLoraWeights {
  const random = createPrng(`${seed}\u0000lora_A`);
  const bound = 1 / Math.sqrt(referenceHiddenSize);
  const a = new Float64Array(rank * referenceHiddenSize).map(() => (2 * random() - 1) * bound);
  return { rank, alpha, a, b: new Float64Array(referenceVocabulary.length * rank) };
}

/**
 * One GRPO step on a reference add-on (see docs/rft-trainers.md):
 *
 * 1. Per group, over the rollouts with a reward: advantage `A = (r − mean) / (std + ε)` (population std).
 * 2. The policy is the engine's word distribution `p = softmax(bias / T)`; a completion's log-probability is
 *    the sum over its vocabulary words of `log p(w)`, whose gradient in the biases is `(onehot(w) − p) / T`.
 * 3. Objective `J = Σ_i A_i · Σ_t log p(w_it) / norm`, with `norm` = completions × their own length
 *    (GRPO, GSPO_TOKEN: a mean per completion, then over completions) or the tokens of all completions (DAPO).
 * 4. Loss `L = −J + klBeta · KL(p ‖ base)`, the base being the uniform distribution (bias 0).
 * 5. The bias gradient flows to `lora_B` and `lora_A` through `bias = (alpha / r) · B · A · h`; the gradient
 *    is clipped to L2 norm {@link maxGradNorm}, then `θ ← (1 − η · weightDecay) · θ − η · ∇L` (SGD with
 *    decoupled weight decay, `optimizerWeightDecay`, default 0), where `η` is `learningRate`, or during
 *    `learningRateWarmupSteps` `learningRate · step / learningRateWarmupSteps` (linear warm-up, `step` 1-based).
 *
 * Metrics: `loss`, `meanReward` (rollouts with a reward), `meanAdvantage`, `gradNorm` (before clipping),
 * `klDivergence`, `rollouts` and `tokens` (those that took part), `learningRate` (the step's `η`).
 */
export function grpoStep(weights: ReferenceLoraWeights, groups: readonly TrainingGroup[], hp: TrainerHyperparameters, step = 1): PolicyStep {
  const method = hp.lossMethod === '' ? 'METHOD_UNSPECIFIED' : hp.lossMethod;
  const normalisation = normalisations[method];
  if (!normalisation) {
    throw failedPrecondition(`the reference trainer runs lossConfig.method ${Object.keys(normalisations).join(', ')}; ${method} is a preference-pair method it does not implement`, { field: 'lossConfig.method' });
  }
  const temperature = hp.temperature !== undefined && hp.temperature > 0 ? hp.temperature : 1;
  const klBeta = hp.klBeta ?? 0;
  const vocabularySize = referenceVocabulary.length;
  const bias = wordLogitBias(weights);
  const p = wordProbabilities(bias, temperature);
  const logP = p.map((x) => Math.log(x));

  const samples: { advantage: number; words: number[] }[] = [];
  let rewardSum = 0;
  let rewarded = 0;
  let advantageSum = 0;
  let scored = 0;
  for (const group of groups) {
    const scoredRollouts = group.rollouts.filter((r) => typeof r.reward === 'number' && Number.isFinite(r.reward));
    for (const r of scoredRollouts) rewardSum += r.reward!;
    rewarded += scoredRollouts.length;
    if (scoredRollouts.length < 2) continue;
    const rewards = scoredRollouts.map((r) => r.reward!);
    const mean = rewards.reduce((s, x) => s + x, 0) / rewards.length;
    const std = Math.sqrt(rewards.reduce((s, x) => s + (x - mean) ** 2, 0) / rewards.length);
    for (const [i, rollout] of scoredRollouts.entries()) {
      const advantage = (rewards[i]! - mean) / (std + advantageEpsilon);
      advantageSum += advantage;
      scored += 1;
      samples.push({ advantage, words: vocabularyIndexes(rollout.completion) });
    }
  }
  const tokens = samples.reduce((s, x) => s + x.words.length, 0);

  // ∂J/∂bias and J itself.
  const gradJ = new Float64Array(vocabularySize);
  let objective = 0;
  for (const { advantage, words } of samples) {
    if (words.length === 0 || advantage === 0) continue;
    const weight = advantage / (normalisation === 'token' ? tokens : words.length * scored);
    for (const w of words) {
      objective += weight * logP[w]!;
      gradJ[w] = gradJ[w]! + weight / temperature;
    }
    for (let v = 0; v < vocabularySize; v += 1) gradJ[v] = gradJ[v]! - (weight * words.length * p[v]!) / temperature;
  }
  // KL(p ‖ uniform) = Σ p log p + log V; its bias gradient is p_j (log p_j − Σ p log p) / T.
  const entropyTerm = p.reduce((s, x, v) => s + (x > 0 ? x * logP[v]! : 0), 0);
  const kl = entropyTerm + Math.log(vocabularySize);
  const gradBias = new Float64Array(vocabularySize);
  for (let v = 0; v < vocabularySize; v += 1) {
    const klGrad = p[v]! > 0 ? (p[v]! * (logP[v]! - entropyTerm)) / temperature : 0;
    gradBias[v] = -gradJ[v]! + klBeta * klGrad;
  }

  // Through bias = s · B · u, u = A · h (h all ones).
  const { rank } = weights;
  const scale = weights.alpha / rank;
  const u = loraInner(weights);
  const gradB = new Float64Array(weights.b.length);
  const gradU = new Float64Array(rank);
  for (let v = 0; v < vocabularySize; v += 1) {
    for (let k = 0; k < rank; k += 1) {
      gradB[v * rank + k] = scale * gradBias[v]! * u[k]!;
      gradU[k] = gradU[k]! + scale * gradBias[v]! * weights.b[v * rank + k]!;
    }
  }
  const gradA = new Float64Array(weights.a.length);
  for (let k = 0; k < rank; k += 1) for (let j = 0; j < referenceHiddenSize; j += 1) gradA[k * referenceHiddenSize + j] = gradU[k]!;

  const gradNorm = Math.sqrt(gradB.reduce((s, x) => s + x * x, 0) + gradA.reduce((s, x) => s + x * x, 0));
  const eta = warmedUpLearningRate(hp, step);
  const update = eta * (gradNorm > maxGradNorm ? maxGradNorm / gradNorm : 1);
  const keep = Math.max(0, 1 - eta * (hp.optimizerWeightDecay ?? 0));
  const next: ReferenceLoraWeights = {
    rank,
    alpha: weights.alpha,
    a: weights.a.map((x, i) => keep * x - update * gradA[i]!),
    b: weights.b.map((x, i) => keep * x - update * gradB[i]!),
  };
  return {
    weights: next,
    metrics: {
      loss: -objective + klBeta * kl,
      meanReward: rewarded > 0 ? rewardSum / rewarded : 0,
      meanAdvantage: scored > 0 ? advantageSum / scored : 0,
      gradNorm,
      klDivergence: kl,
      rollouts: scored,
      tokens,
      learningRate: eta,
    },
  };
}

/** The learning rate of step `step` (1-based): linear warm-up over `learningRateWarmupSteps`, then `learningRate`. */
export function warmedUpLearningRate(hp: Pick<TrainerHyperparameters, 'learningRate' | 'learningRateWarmupSteps'>, step: number): number {
  const warmup = hp.learningRateWarmupSteps ?? 0;
  return warmup > 0 && step < warmup ? (hp.learningRate * Math.max(1, step)) / warmup : hp.learningRate;
}
