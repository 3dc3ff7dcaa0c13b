import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { BaseModelFacts } from './placement-defaults.js';
import { invalidArgument } from '../../errors/index.js';
import { acceleratorTypeValues } from './schema-parts.js';

/**
 * Sizing and hardware checks for deployments and shapes. Runtime plugins provide the real one (memory
 * per accelerator, precision support); without a runtime, the base model's worldSize is the default
 * and nothing is checked.
 */
export interface ServingAdvisor {
  /** Minimum accelerators per replica for the base model at the given type/precision; undefined if unknown. */
  minimumAcceleratorCount(data: JsonObject, facts: BaseModelFacts): number | undefined;
  /**
   * Throws INVALID_ARGUMENT when the accelerator type does not support the precision (naming both), or
   * when acceleratorCount is below the minimum and size validation is not disabled.
   */
  validate(ctx: RequestContext, data: JsonObject, facts: BaseModelFacts): void;
}

/** Without runtime plugins: no sizing, and only the specification's accelerator types. */
export const permissiveServingAdvisor: ServingAdvisor = {
  minimumAcceleratorCount: () => undefined,
  validate: (_ctx, data) => {
    const type = data.acceleratorType;
    if (typeof type === 'string' && !(acceleratorTypeValues as readonly string[]).includes(type)) {
      throw invalidArgument(`acceleratorType ${type} is not one of ${acceleratorTypeValues.slice(1).join(', ')}; install a runtime plugin that serves it`, { field: 'acceleratorType' });
    }
  },
};
