export { createReferenceTrainer, referenceAcceleratorType, referenceCheckpointRoot, type ReferenceTrainerOptions } from './reference-trainer.js';
export { grpoStep, warmedUpLearningRate, initialReferenceLora, advantageEpsilon, maxGradNorm, type PolicyStep } from './grpo.js';
