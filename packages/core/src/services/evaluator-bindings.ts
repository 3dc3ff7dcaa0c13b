import type { Binder } from '../kernel/plugin.js';
import { egressHttpToken, evaluatorRunnerToken, lifecycleHooksToken, storageToken, trainerToken } from '../kernel/tokens.js';
import { createSandboxEvaluatorRunner } from '../evaluators/sandbox-evaluator-runner.js';
import { evaluatorBuildHandler } from '../resources/evaluators/evaluator-build.js';
import { createReferenceTrainer } from '../trainers/reference-trainer.js';
import { evaluatorServiceToken, queueHandlersToken } from './tokens.js';

/**
 * Binds the default evaluator runner (`evaluatorRunnerToken`: sandboxed JavaScript/TypeScript, Python
 * with the host's python3, built-in criteria, REMOTE through the guarded outbound client), the
 * evaluator build's queue handler, and the `evaluators` lifecycle hook that stops the sandbox processes
 * when the gateway stops. A plugin that overrides the token (e.g. with other limits:
 * `createSandboxEvaluatorRunner({ timeoutMs, memoryMb, workers })`) gets its runner closed the same way.
 */
export function registerEvaluators(binder: Binder): void {
  binder.bind({ token: evaluatorRunnerToken, deps: [egressHttpToken], factory: (egress) => createSandboxEvaluatorRunner({ egress }) });
  binder.contribute({ token: queueHandlersToken, deps: [evaluatorRunnerToken, evaluatorServiceToken], factory: evaluatorBuildHandler });
  binder.contribute({
    token: lifecycleHooksToken,
    deps: [evaluatorRunnerToken],
    factory: (runner) => ({
      id: 'evaluators',
      async stop() {
        await runner.close();
      },
    }),
  });
}

/**
 * Binds the default trainer of reinforcement fine-tuning jobs (`trainerToken`): the reference trainer, which
 * trains reference-engine add-ons in-process with its checkpoints in the blob store (docs/rft-trainers.md).
 * A runtime plugin overrides the token with its accelerator trainer.
 */
export function registerTrainers(binder: Binder): void {
  binder.bind({ token: trainerToken, deps: [storageToken], factory: (storage) => createReferenceTrainer(storage.blobs) });
}
