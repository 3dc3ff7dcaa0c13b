import type { RequestContext } from '../contracts/request-context.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { DeploymentState } from '../resources/deployments/deployment-schema.js';
import type { DeploymentChange } from '../resources/deployments/deployment-service.js';
import type { FailureStatus, Managed } from './reconciler-model.js';
import type { ReplicaLifecycle } from './reconciler-replicas.js';
import { isServing, liveReplicas } from './reconciler-rollout.js';
import type { StatusSteps } from './reconciler-status.js';

/*
 * Failed deployments. A deployment becomes FAILED, with `status {code, message}`, when no runtime serves its
 * accelerator type, when a provisioner refuses its spec, or after `maxConsecutiveFailures` replica failures
 * with none ready in between and none ready left. A FAILED deployment keeps no replicas; a PATCH or :scale
 * retries it (FAILED → UPDATING).
 */

/** What failing a deployment needs of the reconciler. */
export interface FailureSteps extends StatusSteps {
  readonly replicas: Pick<ReplicaLifecycle, 'stopAll'>;
  readonly logger: GatewayLogger;
}

/** A FAILED deployment that is updated or scaled is retried; an undeleted one starts with no failure counted. */
export function noteRetry(m: Managed, change: DeploymentChange): void {
  if ((change.kind === 'updated' || change.kind === 'scaled') && change.deployment?.state === 'FAILED') m.retryRequested = true;
  if (change.kind === 'undeleted') {
    m.failures = 0;
    m.nextStartAt = 0;
  }
}

/** Why the deployment fails once `maxConsecutiveFailures` replicas failed in a row and none serves; else undefined. */
export function exhaustedRetries(m: Managed, maxConsecutiveFailures: number): string | undefined {
  if (m.failures < maxConsecutiveFailures || liveReplicas(m).some(isServing)) return undefined;
  return `${m.failures} replicas failed in a row and none is ready; last failure: ${m.lastFailure ?? 'unknown'}`;
}

/** Stops the deployment's replicas and moves it from `state` to FAILED with the failure as its status. */
export async function failDeployment(
  ctx: RequestContext,
  steps: FailureSteps,
  m: Managed,
  state: DeploymentState,
  { code, message }: FailureStatus,
): Promise<void> {
  await steps.replicas.stopAll(ctx, m);
  steps.logger.warn({ deployment: m.name, code, message }, 'deployment failed');
  await steps.write(ctx, m, state, { state: 'FAILED', status: { code, message } });
  await steps.syncRecords(ctx, m, 'FAILED');
}

/**
 * A pass over a FAILED deployment. After a retry request the failure count resets and FAILED → UPDATING
 * (answers true: pass again); otherwise its replicas stay stopped and its counts and records follow.
 */
export async function reconcileFailed(ctx: RequestContext, steps: FailureSteps, m: Managed): Promise<boolean> {
  if (m.retryRequested) {
    m.retryRequested = false;
    m.failures = 0;
    m.nextStartAt = 0;
    await steps.write(ctx, m, 'FAILED', { state: 'UPDATING', status: null });
    return true;
  }
  await steps.replicas.stopAll(ctx, m);
  await steps.write(ctx, m, 'FAILED', {});
  await steps.syncRecords(ctx, m, 'FAILED');
  return false;
}
