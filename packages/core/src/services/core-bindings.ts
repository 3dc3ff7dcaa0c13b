import { setCoreRegistrar } from '../kernel/gateway.js';
import { queueHandlersToken } from '../workers/queue-handler.js';
import { deploymentPurgeHandler } from '../resources/deployments/deployment-purge.js';
import { clockToken, configToken, idGeneratorToken, loggerToken, principalChangeListenersToken, storageToken } from '../kernel/tokens.js';
import { systemContext } from '../kernel/request-context.js';
import { ResourceEnvironment } from '../resources/common/resource-environment.js';
import { GatewaySecrets } from '../resources/common/secrets.js';
import { permissiveServingAdvisor } from '../resources/common/sizing.js';
import { ModelService } from '../resources/models/model-service.js';
import { DatasetService } from '../resources/datasets/dataset-service.js';
import { DatasetFileService } from '../resources/datasets/dataset-files.js';
import { UserService } from '../resources/users/user-service.js';
import { DeploymentShapeService } from '../resources/deployment-shapes/deployment-shape-service.js';
import { DeploymentService } from '../resources/deployments/deployment-service.js';
import { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import { deployedModelLifecycle } from '../resources/deployed-models/deployed-model-lifecycle.js';
import { acceleratorRuntimesToken } from '../runtime/tokens.js';
import { recentTrafficDeletionGuard } from '../serving/deletion-guard.js';
import { runtimeServingAdvisor } from '../serving/runtime-serving-advisor.js';
import { registerServing } from './serving-bindings.js';
import { servingLoadToken } from '../serving/tokens.js';
import { resolveServingOptions, servingOptionsToken } from '../serving/serving-options.js';
import { BatchInferenceJobService } from '../resources/batch-inference-jobs/batch-inference-job-service.js';
import { ReinforcementFineTuningJobService } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-service.js';
import { bootstrapAccount } from './bootstrap.js';
import {
  apiKeyManagerToken, coreServicesToken, gatewaySecretsToken, resourceEnvironmentToken, servingAdvisorToken,
  type CoreServices,
} from './core-services.js';

setCoreRegistrar((binder, hooks) => {
  // Core's own durable work; run by a queue worker pool when the host installs `queueWorkers()`.
  binder.contribute(queueHandlersToken, deploymentPurgeHandler);
  binder.bindFactory(resourceEnvironmentToken, (r) => new ResourceEnvironment(r.resolve(storageToken), r.resolve(clockToken), r.resolve(idGeneratorToken)));
  binder.bindFactory(gatewaySecretsToken, (r) => new GatewaySecrets(r.resolve(configToken).pageTokenSecret));
  // With runtime plugins installed, sizing and hardware checks come from the runtimes.
  binder.bindFactory(servingAdvisorToken, (r) => {
    const runtimes = r.resolveAll(acceleratorRuntimesToken);
    return runtimes.length > 0 ? runtimeServingAdvisor(runtimes) : permissiveServingAdvisor;
  });
  binder.bindFactory(coreServicesToken, (r): CoreServices => {
    const env = r.resolve(resourceEnvironmentToken);
    const secrets = r.resolve(gatewaySecretsToken);
    const advisor = r.resolve(servingAdvisorToken);
    const deployments = new DeploymentService(env, secrets, advisor);
    const deployedModels = new DeployedModelService(env, secrets);
    const servingOptions = resolveServingOptions(r.resolve(servingOptionsToken));
    deployments.setDeletionGuard(recentTrafficDeletionGuard(r.resolve(servingLoadToken), env.clock, servingOptions.recentTrafficWindowMs));
    deployments.addObserver(deployedModelLifecycle(deployedModels, r.resolve(loggerToken)));
    // The reconciler (started when runtimes exist) finishes deletions: DELETING → DELETED once replicas stop.
    deployments.setReconciledDeletion(r.resolveAll(acceleratorRuntimesToken).length > 0);
    const users = new UserService(env, secrets, r.resolveAll(principalChangeListenersToken));
    const datasets = new DatasetService(env, secrets);
    if (r.isBound(apiKeyManagerToken)) {
      const apiKeys = r.resolve(apiKeyManagerToken);
      users.onDeleted((ctx, userName) => apiKeys.revokeAll(ctx, userName));
    }
    return {
      models: new ModelService(env, secrets),
      datasets,
      datasetFiles: new DatasetFileService(env, secrets, datasets),
      users,
      deploymentShapes: new DeploymentShapeService(env, secrets, advisor),
      deployments,
      deployedModels,
      batchInferenceJobs: new BatchInferenceJobService(env, secrets),
      reinforcementFineTuningJobs: new ReinforcementFineTuningJobService(env, secrets),
    };
  });
  hooks.push({
    id: 'core',
    async start({ resolver }) {
      const ctx = systemContext('start');
      const storage = resolver.resolve(storageToken);
      await resolver.resolve(gatewaySecretsToken).load(ctx, storage.kv);
      const config = resolver.resolve(configToken);
      const apiKeys = resolver.isBound(apiKeyManagerToken) ? resolver.resolve(apiKeyManagerToken) : undefined;
      await bootstrapAccount(ctx, config, resolver.resolve(coreServicesToken), storage, apiKeys, resolver.resolve(loggerToken));
    },
  });
  registerServing(binder, hooks);
});
