import type { LifecycleHook } from '../kernel/gateway.js';
import type { Binder } from '../kernel/plugin.js';
import { clockToken, loggerToken, storageToken } from '../kernel/tokens.js';
import { acceleratorRuntimesToken } from '../runtime/tokens.js';
import { coreServicesToken } from './core-services.js';
import { DeploymentReconciler } from '../serving/deployment-reconciler.js';
import { deploymentReconcilerToken, servingLoadToken } from '../serving/tokens.js';
import { RuntimeServingDirectory } from '../serving/runtime-serving-directory.js';
import { servingDirectoryToken } from '../serving/serving-directory.js';
import { ServingLoad } from '../serving/serving-load.js';
import { resolveServingOptions, servingOptionsToken } from '../serving/serving-options.js';
import { ReconcilerLeadership } from '../serving/reconciler-leadership.js';
import { ServingChangeConsumer, publishServingChanges } from '../serving/serving-change-feed.js';
import { randomIdGenerator } from '../ports/id-generator.js';

/**
 * Core's serving bindings: the load tracker, the deployment reconciler, the serving directory and the
 * `serving` lifecycle hook. The hook starts the reconciler (after every plugin has started) only when a
 * runtime plugin is installed, and on stop closes the directory's queue and stops the reconciler (replicas
 * keep running; a runtime plugin closes the provisioner it owns).
 */
export function registerServing(binder: Binder, hooks: LifecycleHook[]): void {
  let reconciler: DeploymentReconciler | undefined;
  let directory: RuntimeServingDirectory | undefined;
  let leadership: ReconcilerLeadership | undefined;
  let changeFeed: ServingChangeConsumer | undefined;
  let stopPublishing: (() => void) | undefined;
  binder.bindValue(servingOptionsToken, {});
  binder.bindFactory(servingLoadToken, (r) => new ServingLoad(r.resolve(clockToken)));
  binder.bindFactory(deploymentReconcilerToken, (r) => {
    const services = r.resolve(coreServicesToken);
    reconciler = new DeploymentReconciler({
      runtimes: r.resolveAll(acceleratorRuntimesToken),
      deployments: services.deployments,
      deployedModels: services.deployedModels,
      storage: r.resolve(storageToken),
      clock: r.resolve(clockToken),
      logger: r.resolve(loggerToken),
      load: r.resolve(servingLoadToken),
      options: resolveServingOptions(r.resolve(servingOptionsToken)),
    });
    return reconciler;
  });
  binder.bindFactory(servingDirectoryToken, (r) => {
    const options = resolveServingOptions(r.resolve(servingOptionsToken));
    directory = new RuntimeServingDirectory(
      r.resolve(deploymentReconcilerToken),
      r.resolve(servingLoadToken),
      r.resolve(storageToken),
      r.resolve(coreServicesToken).deployedModels,
      {
        maxWaitersPerDeployment: options.maxWaitersPerDeployment,
        maxWaitMs: options.maxWaitMs,
        runtimesInstalled: r.resolveAll(acceleratorRuntimesToken).length > 0,
      },
    );
    return directory;
  });
  hooks.push({
    id: 'serving',
    async start({ resolver }) {
      if (resolver.resolveAll(acceleratorRuntimesToken).length === 0) return;
      const options = resolveServingOptions(resolver.resolve(servingOptionsToken));
      const logger = resolver.resolve(loggerToken);
      // One reconciler per store: the instance holding the lease runs it (see ReconcilerLeadership).
      leadership = new ReconcilerLeadership(resolver.resolve(storageToken), logger, {
        leaseMs: options.leaderLeaseMs,
        instanceId: `gateway-${randomIdGenerator.resourceId().slice(0, 12)}`,
      });
      const storage = resolver.resolve(storageToken);
      // Changes made through any instance reach the leader through the outbox.
      stopPublishing = publishServingChanges(resolver.resolve(coreServicesToken), storage.outbox, logger);
      await leadership.start({
        acquired: async () => {
          const leader = resolver.resolve(deploymentReconcilerToken);
          await leader.start();
          changeFeed = new ServingChangeConsumer(storage.outbox, (name) => leader.reconcileSoon(name), logger);
          changeFeed.start(options.pollIntervalMs);
        },
        lost: async () => {
          await changeFeed?.stop();
          await reconciler?.stop();
        },
      });
    },
    async stop() {
      stopPublishing?.();
      directory?.close();
      await changeFeed?.stop();
      await reconciler?.stop();
      await leadership?.stop();
    },
  });
}
