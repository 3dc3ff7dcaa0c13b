import { systemContext } from '../../kernel/request-context.js';
import type { GatewayLogger } from '../../ports/logger.js';
import type { DeploymentObserver } from '../deployments/deployment-service.js';
import type { DeployedModelService } from './deployed-model-service.js';

/**
 * Keeps deployed-model records in step with deployment changes made through the API: a created or undeleted
 * deployment gets a record for its own base model (the model's default when it is the first, so GET model
 * shows it in deployedModelRefs); a deleted one moves its records to UNDEPLOYING, or removes them once the
 * deployment is DELETED or gone. Failures are logged: the deployment change itself stands.
 */
export function deployedModelLifecycle(deployedModels: DeployedModelService, logger: GatewayLogger): DeploymentObserver {
  return {
    async changed(_ctx, change) {
      const ctx = systemContext('deployed-models');
      try {
        if ((change.kind === 'created' || change.kind === 'undeleted') && change.deployment) {
          await deployedModels.ensureBaseRecord(ctx, change.deployment);
        }
        if (change.kind === 'deleted') await deployedModels.syncWithDeployment(ctx, change.name);
      } catch (error) {
        logger.warn({ err: String(error), deployment: change.name, change: change.kind }, 'cannot update deployed models');
      }
    },
  };
}
