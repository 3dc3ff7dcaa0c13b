import type { Binder, LifecycleHook } from '../kernel/plugin.js';
import { acceleratorRuntimesToken, clockToken, lifecycleHooksToken, loggerToken, servingDirectoryToken, storageToken, telemetryToken } from '../kernel/tokens.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';
import type { ServingDirectory } from '../ports/serving-directory.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { DeploymentService } from '../resources/deployments/deployment-service.js';
import type { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import { DeploymentReconciler } from '../serving/deployment-reconciler.js';
import { RuntimeServingDirectory } from '../serving/runtime-serving-directory.js';
import { ServingLoad } from '../serving/serving-load.js';
import { resolveServingOptions, type ServingOptions } from '../serving/serving-options.js';
import { ReconcilerLeadership } from '../serving/reconciler-leadership.js';
import { ServingChangeConsumer, publishServingChanges } from '../serving/serving-change-feed.js';
import { randomIdGenerator } from '../ports/id-generator.js';
import {
  deployedModelServiceToken, deploymentReconcilerToken, deploymentServiceToken, modelFileServiceToken, modelFileSourcesToken, servingLoadToken,
  servingOptionsToken,
} from './tokens.js';
import { blobModelFileSources } from '../serving/blob-model-file-sources.js';
import { noRuntimeStatus } from '../resources/deployments/deployment-definition.js';

/**
 * The `serving` lifecycle hook: publishes deployment changes to the outbox, starts the reconciler (after
 * every plugin has started) only when a runtime plugin is installed (else logs that inference is off), and
 * on stop closes the directory's queue and stops the reconciler (replicas keep running; a runtime plugin
 * closes the provisioner it owns).
 */
class ServingLifecycle implements LifecycleHook {
  readonly id = 'serving';
  private leadership: ReconcilerLeadership | undefined;
  private changeFeed: ServingChangeConsumer | undefined;
  private stopPublishing: (() => void) | undefined;

  constructor(
    private readonly runtimes: readonly AcceleratorRuntime[],
    private readonly options: ServingOptions,
    private readonly storage: Storage,
    private readonly logger: GatewayLogger,
    private readonly deployments: DeploymentService,
    private readonly deployedModels: DeployedModelService,
    private readonly reconciler: DeploymentReconciler,
    private readonly directory: ServingDirectory,
  ) {}

  async start(): Promise<void> {
    const { storage, logger, reconciler } = this;
    // Changes made through any instance reach the leader through the outbox; an instance without runtimes
    // publishes too, so a gateway started later with a runtime plugin picks up the deployments made before.
    this.stopPublishing = publishServingChanges({ deployments: this.deployments, deployedModels: this.deployedModels }, storage.outbox, logger);
    if (this.runtimes.length === 0) {
      logger.warn({ status: noRuntimeStatus.code }, `inference is off: ${noRuntimeStatus.message}`);
      return;
    }
    const options = resolveServingOptions(this.options);
    // One reconciler per store: the instance holding the lease runs it (see ReconcilerLeadership).
    this.leadership = new ReconcilerLeadership(storage, logger, {
      leaseMs: options.leaderLeaseMs,
      instanceId: `gateway-${randomIdGenerator.resourceId().slice(0, 12)}`,
    });
    await this.leadership.start({
      acquired: async () => {
        await reconciler.start();
        this.changeFeed = new ServingChangeConsumer(storage.outbox, (name) => reconciler.reconcileSoon(name), logger);
        this.changeFeed.start(options.pollIntervalMs);
      },
      lost: async () => {
        await this.changeFeed?.stop();
        await reconciler.stop();
      },
    });
  }

  async stop(): Promise<void> {
    this.stopPublishing?.();
    if (this.directory instanceof RuntimeServingDirectory) this.directory.close();
    await this.changeFeed?.stop();
    await this.reconciler.stop();
    await this.leadership?.stop();
  }
}

/** Core's serving bindings: the load tracker, the deployment reconciler, the serving directory and the `serving` hook. */
export function registerServing(binder: Binder): void {
  binder.bindValue(servingOptionsToken, {});
  binder.bind({ token: servingLoadToken, deps: [clockToken], factory: (clock) => new ServingLoad(clock) });
  binder.bind({
    token: modelFileSourcesToken,
    deps: [storageToken, modelFileServiceToken],
    // Replicas outside the gateway's process download with the upload flow's signed GET URLs.
    factory: (storage, files) => blobModelFileSources(storage.blobs, (model, fileName, ttlSeconds) => files.downloadUrl(model, fileName, ttlSeconds)),
  });
  binder.bind({
    token: deploymentReconcilerToken,
    deps: [
      acceleratorRuntimesToken, deploymentServiceToken, deployedModelServiceToken, storageToken, clockToken, loggerToken, servingLoadToken,
      servingOptionsToken, modelFileSourcesToken, telemetryToken,
    ],
    factory: (runtimes, deployments, deployedModels, storage, clock, logger, load, options, modelFiles, telemetry) =>
      new DeploymentReconciler({ runtimes, deployments, deployedModels, storage, clock, logger, load, options: resolveServingOptions(options), modelFiles, telemetry }),
  });
  binder.bind({
    token: servingDirectoryToken,
    deps: [deploymentReconcilerToken, servingLoadToken, storageToken, deployedModelServiceToken, servingOptionsToken, acceleratorRuntimesToken],
    factory: (reconciler, load, storage, deployedModels, servingOptions, runtimes) => {
      const options = resolveServingOptions(servingOptions);
      return new RuntimeServingDirectory(reconciler, load, storage, deployedModels, {
        maxWaitersPerDeployment: options.maxWaitersPerDeployment,
        maxWaitMs: options.maxWaitMs,
        runtimesInstalled: runtimes.length > 0,
      });
    },
  });
  binder.contribute({
    token: lifecycleHooksToken,
    deps: [
      acceleratorRuntimesToken, servingOptionsToken, storageToken, loggerToken, deploymentServiceToken, deployedModelServiceToken,
      deploymentReconcilerToken, servingDirectoryToken,
    ],
    factory: (...deps) => new ServingLifecycle(...deps),
  });
}
