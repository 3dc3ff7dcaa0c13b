import type { EvaluatorRunner } from '../../ports/evaluator-runner.js';
import { defineQueueHandler, type AtLeastOnceQueueHandler } from '../../workers/queue-handler.js';
import { evaluatorBuildQueue, type EvaluatorService } from './evaluator-service.js';

/**
 * Builds evaluators (queue `berth.evaluators.build`): checks through the runner that the evaluator's
 * code compiles and its language is available here, then records ACTIVE or BUILD_FAILED. Idempotent: a
 * build of an evaluator that changed since, or is no longer BUILDING, does nothing.
 */
export function evaluatorBuildHandler(runner: EvaluatorRunner, evaluators: EvaluatorService): AtLeastOnceQueueHandler {
  return defineQueueHandler({
    queue: evaluatorBuildQueue,
    async handle(ctx, job) {
      const { name, buildKey } = job.payload as { name: string; buildKey: string };
      const evaluator = await evaluators.needsBuild(ctx, name, buildKey);
      if (evaluator === undefined) return { built: false, state: null };
      const result = await runner.build(ctx, evaluator);
      const recorded = await evaluators.finishBuild(ctx, name, buildKey, result);
      return { built: recorded !== undefined, state: recorded?.state ?? null };
    },
  });
}
