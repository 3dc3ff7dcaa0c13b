import { Code, isGatewayError } from '../errors/index.js';
import type { DeploymentState } from '../resources/deployments/deployment-schema.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import { autoscalingSettingsOf, decideReplicaCount } from './autoscaler.js';
import { StaleRead, type DeploymentReconcilerDependencies, type Managed } from './reconciler-model.js';

/**
 * Asks the autoscaler ({@link decideReplicaCount}) for the deployment's desired replica count and stores
 * a new one (an etag-checked mutation that re-checks the state and the count it decided on). Answers the
 * count to converge on, and `redo` when the stored deployment moved on or is gone (the pass is redone).
 */
export async function applyAutoscaling(
  ctx: RequestContext,
  deps: Pick<DeploymentReconcilerDependencies, 'options' | 'clock' | 'load' | 'deployments' | 'logger' | 'telemetry'>,
  m: Managed,
  data: JsonObject,
  state: DeploymentState,
): Promise<{ desired: number; redo: boolean }> {
  const settings = autoscalingSettingsOf(data, deps.options.defaultConcurrentRequestsTarget);
  const stored = typeof data.desiredReplicaCount === 'number' ? data.desiredReplicaCount : Math.min(Math.max(settings.minReplicaCount, 1), settings.maxReplicaCount);
  const decision = decideReplicaCount(settings, { nowMs: deps.clock.now().getTime(), desired: stored, load: deps.load.sample(m.name) }, m.autoscaler);
  m.autoscaler = decision.state;
  if (decision.desired === stored) return { desired: stored, redo: false };
  try {
    m.data = await deps.deployments.resources.mutate(ctx, m.name, (previous) => {
      if (previous.state !== state || previous.desiredReplicaCount !== data.desiredReplicaCount) throw new StaleRead();
      return { ...previous, desiredReplicaCount: decision.desired };
    });
    deps.logger.info({ deployment: m.name, from: stored, to: decision.desired, reason: decision.reason }, 'autoscaled');
    deps.telemetry?.autoscalerDecision({ deployment: m.name, reason: decision.reason, desired: decision.desired });
    return { desired: decision.desired, redo: false };
  } catch (error) {
    m.autoscaler = { ...m.autoscaler, observedDesired: stored };
    if (error instanceof StaleRead || (isGatewayError(error) && error.code === Code.NOT_FOUND)) return { desired: stored, redo: true };
    throw error;
  }
}
