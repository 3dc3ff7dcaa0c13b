import { definePlugin, type GatewayPlugin, type LifecycleHook } from '../kernel/plugin.js';
import { TrainingFiles } from '../training-files/training-files.js';
import {
  acceleratorRuntimesToken, apiKeyManagerToken, clockToken, configToken, idGeneratorToken, lifecycleHooksToken, loggerToken,
  servingAdvisorToken, storageToken, telemetryToken,
} from '../kernel/tokens.js';
import {
  batchInferenceJobServiceToken, coreServicesToken, trainingFilesToken, datasetFileServiceToken, modelFileServiceToken, datasetServiceToken, deployedModelServiceToken,
  deploymentDeletionGuardsToken, deploymentObserversToken, deploymentServiceToken, deploymentShapeServiceToken, gatewaySecretsToken,
  modelServiceToken, queueHandlersToken, queueWakeupsToken, reinforcementFineTuningJobServiceToken, resourceEnvironmentToken, servingLoadToken,
  servingOptionsToken, userServiceToken, evaluatorServiceToken,
} from './tokens.js';
import { optional } from '../kernel/token.js';
import { systemContext } from '../kernel/request-context.js';
import { deploymentPurgeHandler } from '../resources/deployments/deployment-purge.js';
import { defaultFileSweepOptions, fileSweepHandler, fileSweepJob } from '../resources/models/file-sweep.js';
import { BackgroundResponses } from '../responses/background-responses.js';
import { QueueWakeups } from '../workers/queue-wakeups.js';
import { BatchInferenceRunner } from '../batch/batch-runner.js';
import { BatchCapacity } from '../batch/batch-capacity.js';
import { batchInferenceRunnerToken } from '../batch/tokens.js';
import { RftJobRunner } from '../rft/rft-runner.js';
import { ServiceRftModels } from '../rft/rft-models.js';
import { rftJobRunnerToken } from '../rft/tokens.js';
import { backgroundResponsesToken } from '../responses/tokens.js';
import { ResourceEnvironment } from '../resources/common/resource-environment.js';
import { GatewaySecrets } from '../resources/common/secrets.js';
import { permissiveServingAdvisor } from '../resources/common/sizing.js';
import { DatasetFileService } from '../resources/datasets/dataset-files.js';
import { ModelFileService } from '../resources/models/model-file-service.js';
import { deployedModelLifecycle } from '../resources/deployed-models/deployed-model-lifecycle.js';
import { recentTrafficDeletionGuard } from '../serving/deletion-guard.js';
import { runtimeServingAdvisor } from '../serving/runtime-serving-advisor.js';
import { registerServing } from './serving-bindings.js';
import { registerOutbound } from './outbound-bindings.js';
import { registerImages } from './image-bindings.js';
import { registerEvaluators, registerTrainers } from './evaluator-bindings.js';
import { resolveServingOptions } from '../serving/serving-options.js';
import { bootstrapAccount } from './bootstrap.js';
import { registerResourceModules } from '../api/resource-module.js';
import { coreResourceModules } from './resource-modules.js';

export const coreModuleId = 'core';

/**
 * Core as a module like any plugin: its services (one token each), the multi-bindings that connect them
 * (deletion guards, deployment observers, user deletion hooks), durable work, serving, the guarded outbound
 * HTTP client, and the `core` lifecycle hook (page-token secret, account bootstrap). `createGateway`
 * registers it before the host's plugins.
 */
export function coreModule(): GatewayPlugin {
  return definePlugin({
    id: coreModuleId,
    register(binder) {
      // Core's own durable work; run by a queue worker pool when the host installs `queueWorkers()`.
      binder.contribute({ token: queueHandlersToken, deps: [clockToken], factory: deploymentPurgeHandler });
      // The scheduled sweep of orphaned model and dataset files; the first run is asked for at start (below).
      binder.contribute({ token: queueHandlersToken, deps: [clockToken], factory: (clock) => fileSweepHandler(clock) });
      binder.bind({ token: queueWakeupsToken, deps: [], factory: () => new QueueWakeups() });
      binder.bind({ token: backgroundResponsesToken, deps: [], factory: () => new BackgroundResponses() });
      binder.contribute({ token: queueHandlersToken, deps: [backgroundResponsesToken], factory: (background) => background.handler });
      binder.bind({
        token: batchInferenceRunnerToken,
        deps: [storageToken, deploymentServiceToken, telemetryToken],
        factory: (storage, deployments, telemetry) => new BatchInferenceRunner({}, new BatchCapacity(storage, deployments), telemetry),
      });
      binder.contribute({ token: queueHandlersToken, deps: [batchInferenceRunnerToken], factory: (batch) => batch.handler });
      binder.bind({
        token: rftJobRunnerToken,
        deps: [storageToken, deploymentServiceToken, modelServiceToken, modelFileServiceToken, deployedModelServiceToken],
        factory: (storage, deployments, models, modelFiles, deployedModels) =>
          new RftJobRunner({}, new ServiceRftModels(storage, models, modelFiles, deployedModels), new BatchCapacity(storage, deployments)),
      });
      binder.contribute({ token: queueHandlersToken, deps: [rftJobRunnerToken], factory: (rft) => rft.handler });
      binder.bind({
        token: resourceEnvironmentToken,
        deps: [storageToken, clockToken, idGeneratorToken],
        factory: (storage, clock, ids) => new ResourceEnvironment(storage, clock, ids),
      });
      binder.bind({ token: gatewaySecretsToken, deps: [configToken], factory: (config) => new GatewaySecrets(config.pageTokenSecret) });
      // With runtime plugins installed, sizing and hardware checks come from the runtimes.
      binder.bind({
        token: servingAdvisorToken,
        deps: [acceleratorRuntimesToken],
        factory: (runtimes) => (runtimes.length > 0 ? runtimeServingAdvisor(runtimes) : permissiveServingAdvisor),
      });

      const env = [resourceEnvironmentToken, gatewaySecretsToken] as const;
      registerResourceModules(binder, coreResourceModules);
      binder.bind({
        token: datasetFileServiceToken, deps: [...env, datasetServiceToken, configToken],
        factory: (e, s, d, config) => new DatasetFileService(e, s, d, { maxFileBytes: config.maxDatasetFileBytes }),
      });
      binder.bind({
        token: modelFileServiceToken, deps: [...env, modelServiceToken, configToken],
        factory: (e, s, m, config) => new ModelFileService(e, s, m, { maxFileBytes: config.maxModelFileBytes, maxModelBytes: config.maxModelBytes }),
      });
      binder.bind({
        token: trainingFilesToken, deps: [...env, configToken],
        factory: (e, s, config) => new TrainingFiles(e.storage.blobs, s, e.clock, { maxFileBytes: config.maxModelFileBytes }),
      });

      binder.contribute({
        token: deploymentDeletionGuardsToken,
        deps: [servingLoadToken, clockToken, servingOptionsToken],
        factory: (load, clock, options) => recentTrafficDeletionGuard(load, clock, resolveServingOptions(options).recentTrafficWindowMs),
      });
      binder.contribute({ token: deploymentObserversToken, deps: [deployedModelServiceToken, loggerToken], factory: deployedModelLifecycle });

      binder.bind({
        token: coreServicesToken,
        deps: [
          modelServiceToken, datasetServiceToken, datasetFileServiceToken, userServiceToken, deploymentShapeServiceToken, deploymentServiceToken,
          deployedModelServiceToken, batchInferenceJobServiceToken, reinforcementFineTuningJobServiceToken, modelFileServiceToken, evaluatorServiceToken,
        ],
        factory: (models, datasets, datasetFiles, users, deploymentShapes, deployments, deployedModels, batchInferenceJobs, reinforcementFineTuningJobs, modelFiles, evaluators) =>
          Object.freeze({
            models, datasets, datasetFiles, modelFiles, users, deploymentShapes, deployments, deployedModels, batchInferenceJobs, reinforcementFineTuningJobs,
            evaluators,
          }),
      });

      binder.contribute({
        token: lifecycleHooksToken,
        deps: [storageToken, gatewaySecretsToken, configToken, userServiceToken, optional(apiKeyManagerToken), loggerToken],
        factory: (storage, secrets, config, users, apiKeys, logger): LifecycleHook => ({
          id: 'core',
          async start() {
            const ctx = systemContext('start');
            await secrets.load(ctx, storage.kv);
            await bootstrapAccount(ctx, config, users, storage, apiKeys, logger);
          },
        }),
      });
      binder.contribute({
        token: lifecycleHooksToken,
        deps: [storageToken, clockToken],
        factory: (storage, clock): LifecycleHook => ({
          id: 'file-sweep',
          async start() {
            await storage.queue.enqueue(systemContext('file-sweep'), fileSweepJob(clock.now().getTime(), defaultFileSweepOptions.intervalMs));
          },
        }),
      });
      registerServing(binder);
      registerOutbound(binder);
      registerImages(binder);
      registerEvaluators(binder);
      registerTrainers(binder);
    },
  });
}
