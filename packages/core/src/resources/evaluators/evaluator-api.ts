import { defineResourceApi } from '../../api/resource-api.js';
import { standardOperations } from '../../api/standard-operations.js';
import { evaluatorDefinition } from './evaluator-definition.js';
import { createEvaluatorRequestSchema } from './evaluator-schema.js';
import type { EvaluatorService } from './evaluator-service.js';

/** Evaluators over HTTP: create takes the reference's `{evaluator, evaluatorId}` body; get, list, update (PATCH), delete. */
export const evaluatorApi = defineResourceApi<EvaluatorService>({
  definition: evaluatorDefinition, tag: 'Evaluators',
  create: { body: createEvaluatorRequestSchema, handle: (evaluators, ctx, accountId, r) => evaluators.create(ctx, accountId, r.body ?? {}) },
  operations: (evaluators) => standardOperations(evaluators, ['update', 'delete']),
});
