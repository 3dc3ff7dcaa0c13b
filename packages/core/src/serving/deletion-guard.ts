import { failedPrecondition } from '../errors/index.js';
import type { Clock } from '../ports/clock.js';
import type { DeploymentDeletionGuard } from '../resources/deployments/deployment-service.js';
import type { ServingLoad } from './serving-load.js';

function describeWindow(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  return `${Math.round(ms / 1000)} seconds`;
}

/**
 * Refuses (FAILED_PRECONDITION, reason DEPLOYMENT_IN_USE) to delete a deployment that has requests in flight
 * or waiting, or served one within `windowMs`, unless the caller passes ignoreChecks. Traffic is what this
 * gateway saw since it started.
 */
export function recentTrafficDeletionGuard(load: ServingLoad, clock: Clock, windowMs: number): DeploymentDeletionGuard {
  return {
    async check(_ctx, deployment, options) {
      if (options.ignoreChecks) return;
      const name = String(deployment.name);
      const last = load.lastRequestAt(name);
      const recent = last !== undefined && clock.now().getTime() - last < windowMs;
      if (load.active(name) > 0 || recent) {
        throw failedPrecondition(
          `deployment ${name} served inference requests within the last ${describeWindow(windowMs)}; pass ignoreChecks=true to delete it anyway`,
          { reason: 'DEPLOYMENT_IN_USE' },
        );
      }
    },
  };
}
