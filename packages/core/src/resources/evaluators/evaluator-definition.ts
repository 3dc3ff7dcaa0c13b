import type { ResourceDefinition } from '../common/resource-definition.js';
import { evaluatorFields } from './evaluator-fields.js';
import { applyEvaluatorRules } from './evaluator-rules.js';
import { evaluatorOutputOnly, evaluatorSchema, type Evaluator } from './evaluator-schema.js';
import { evaluatorStateMachine } from './evaluator-state-machine.js';

/**
 * Evaluators (reward functions of reinforcement fine-tuning): create, get, list, update, delete.
 * `EvaluatorService` stores a new or changed evaluator BUILDING with its build on the durable queue.
 */
export const evaluatorDefinition: ResourceDefinition<Evaluator> = {
  collection: 'evaluators',
  singular: 'evaluator',
  schema: evaluatorSchema,
  outputOnly: evaluatorOutputOnly,
  immutable: [],
  fields: evaluatorFields,
  defaultOrder: 'create_time',
  stateMachine: evaluatorStateMachine,
  prepareCreate: (ctx, data) => {
    applyEvaluatorRules(data);
    if (ctx.principal?.email !== undefined) data.createdBy = ctx.principal.email;
  },
  prepareUpdate: (_ctx, next) => applyEvaluatorRules(next),
};
