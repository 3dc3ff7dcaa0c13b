import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';

/** What a base model contributes to deployment and shape defaults. */
export interface BaseModelFacts {
  readonly modelType?: string;
  readonly parameterCount?: string;
  readonly worldSize: number;
  readonly defaultDraftModel?: string;
  readonly defaultDraftTokenCount?: number;
  readonly defaultPrecision?: string;
  readonly contextLength?: number;
}

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
