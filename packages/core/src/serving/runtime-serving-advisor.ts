import { findRuntime } from '../runtime/accelerator-runtime.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import type { BaseModelFacts, ServingAdvisor } from '../ports/serving-advisor.js';
import type { AcceleratorRuntime, AcceleratorSelection, AcceleratorTypeName } from '../ports/accelerator-runtime.js';
import type { Precision } from '../contracts/precision.js';

function selectionOf(data: JsonObject): AcceleratorSelection {
  const precision = typeof data.precision === 'string' ? (data.precision as Precision) : undefined;
  return { acceleratorType: String(data.acceleratorType) as AcceleratorTypeName, ...(precision ? { precision } : {}) };
}

/** The context length to size for: the shape's maxContextLength, else the model's contextLength. */
function contextLengthOf(data: JsonObject, facts: BaseModelFacts): number | undefined {
  if (typeof data.maxContextLength === 'number' && data.maxContextLength > 0) return data.maxContextLength;
  return facts.contextLength;
}

function parameterCountOf(data: JsonObject, facts: BaseModelFacts): string | undefined {
  return facts.parameterCount ?? (typeof data.parameterCount === 'string' && data.parameterCount !== '' ? data.parameterCount : undefined);
}

/**
 * The serving advisor used when runtime plugins are installed: the default acceleratorCount is the runtime's
 * estimate for the base model's parameterCount (at the precision and context length), and
 * `validate` asks the runtime serving the accelerator type.
 *
 * `validate` throws INVALID_ARGUMENT when no installed runtime serves the accelerator type (field
 * acceleratorType), when the type does not support the precision (field precision; the message names both),
 * when acceleratorCount is not a tensor-parallel size the type allows, or when it is below the estimate and
 * disableDeploymentSizeValidation is not set (field acceleratorCount). A base model without parameterCount is
 * not size-checked.
 */
export function runtimeServingAdvisor(runtimes: readonly AcceleratorRuntime[]): ServingAdvisor {
  return {
    minimumAcceleratorCount(data, facts) {
      const parameterCount = parameterCountOf(data, facts);
      const runtime = runtimes.find((r) => r.describe(String(data.acceleratorType)) !== undefined);
      if (!parameterCount || !runtime) return undefined;
      const contextLength = contextLengthOf(data, facts);
      return runtime.estimateSize({ ...selectionOf(data), parameterCount, ...(contextLength ? { contextLength } : {}) }).acceleratorCount;
    },
    validate(_ctx: RequestContext, data, facts) {
      const runtime = findRuntime(runtimes, String(data.acceleratorType));
      const selection = selectionOf(data);
      runtime.validate(selection);
      const parameterCount = parameterCountOf(data, facts);
      const contextLength = contextLengthOf(data, facts);
      runtime.checkSize({
        ...selection,
        acceleratorCount: typeof data.acceleratorCount === 'number' ? data.acceleratorCount : 1,
        parameterCount: parameterCount ?? '1',
        ...(contextLength ? { contextLength } : {}),
        disableDeploymentSizeValidation: data.disableDeploymentSizeValidation === true || parameterCount === undefined,
      });
    },
  };
}
