import type { GatewayPlugin } from '../kernel/plugin.js';
import { principalContext, createTestGateway, type TestGateway } from './test-gateway.js';
import type { Clock } from '../ports/clock.js';
import { simulatedProvisioner, type SimulatedProvisioner, type SimulatedProvisionerOptions } from '../runtime/simulated-provisioner.js';
import type { DeploymentReconciler } from '../serving/deployment-reconciler.js';
import type { RuntimeServingDirectory } from '../serving/runtime-serving-directory.js';
import { servingDirectoryToken } from '../kernel/tokens.js';
import { deploymentReconcilerToken, servingLoadToken } from '../services/tokens.js';
import { servingOptions } from '../services/serving-options-plugin.js';
import type { ServingLoad } from '../serving/serving-load.js';
import type { ServingOptions } from '../serving/serving-options.js';
import type { JsonObject } from '../contracts/json.js';

/** A started gateway with a runtime on a simulated provisioner, for serving tests. */
export interface ServingTestGateway {
  readonly tg: TestGateway;
  readonly provisioner: SimulatedProvisioner;
  readonly reconciler: DeploymentReconciler;
  readonly directory: RuntimeServingDirectory;
  readonly load: ServingLoad;
  /** Stops the gateway and, unless `keepProvisioner`, closes the provisioner. */
  stop(options?: { keepProvisioner?: boolean }): Promise<void>;
}

/** Fast phases (10 ms each) so tests stay quick. */
export const fastDelays: SimulatedProvisionerOptions['delays'] = { schedulingMs: 10, downloadingMs: 10, initializingMs: 10 };

/**
 * Starts a gateway for serving tests. `runtime` builds the runtime plugin on the provisioner (tests pass e.g.
 * `(p) => gpuxRuntime({ provisioner: p })`, which leaves closing the provisioner to its owner: this kit).
 * Serving options default to quick polling, backoff and draining.
 */
export async function startServingGateway(options: {
  runtime: (provisioner: SimulatedProvisioner) => GatewayPlugin;
  storage: GatewayPlugin;
  provisioner?: SimulatedProvisioner;
  serving?: ServingOptions;
  clock?: Clock;
  /** More plugins, after the runtime (e.g. one overriding a binding). */
  plugins?: readonly GatewayPlugin[];
}): Promise<ServingTestGateway> {
  const provisioner = options.provisioner ?? simulatedProvisioner({ delays: fastDelays });
  const tg = await createTestGateway({
    plugins: [
      options.storage,
      options.runtime(provisioner),
      servingOptions({ pollIntervalMs: 50, retryBackoffMs: 20, maxRetryBackoffMs: 100, drainTimeoutMs: 300, maxWaitMs: 3000, ...options.serving }),
      ...(options.plugins ?? []),
    ],
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    tg,
    provisioner,
    reconciler: tg.gateway.resolve(deploymentReconcilerToken),
    directory: tg.gateway.resolve(servingDirectoryToken) as RuntimeServingDirectory,
    load: tg.gateway.resolve(servingLoadToken),
    async stop(stopOptions = {}) {
      await tg.stop();
      if (!stopOptions.keepProvisioner) await provisioner.close();
    },
  };
}

/** Polls `probe` until `until` holds (default 3 s), returning the last value; throws with it otherwise. */
export async function waitFor<T>(probe: () => Promise<T> | T, until: (value: T) => boolean, timeoutMs = 3000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let value = await probe();
  while (!until(value)) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    value = await probe();
  }
  return value;
}

/** A READY 8B base model `accounts/{account}/models/{id}` (fits one 80 GB accelerator at BF16). */
export function baseModelBody(overrides: JsonObject = {}): JsonObject {
  return { kind: 'HUB_BASE_MODEL', baseModelDetails: { parameterCount: '8000000000', modelType: 'llama' }, contextLength: 8192, ...overrides };
}

export const adminOf = (account: string) => principalContext(account, 'admin');
