export { RftJobRunner, defaultLearningRate, type RftRunnerOptions } from './rft-runner.js';
export { rftJobRunnerToken } from './tokens.js';
export { ServiceRftModels, policyModelName, type RftModels, type AddonFromCheckpoint } from './rft-models.js';
export { carveoutEvery, chunkingThresholdRows, chunkRanges, parseRlRow, splitRows, type RftRows, type RlRow } from './rft-dataset.js';
export { earlyStoppingMinDelta, earlyStoppingPatience, rewardPlateaued } from './rft-metrics.js';
export { rolloutDefaults, rolloutSampling, runRollouts, sampleSeed, type RolloutRun, type RolloutSampling } from './rft-rollouts.js';
