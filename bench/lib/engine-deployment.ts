import { coreServicesToken, servingOptions, systemContext, type Gateway, type GatewayPlugin } from '@berth/core';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';

/** The model the benchmark gateways serve (account `bench`). */
export const benchModel = 'accounts/bench/models/bench-model';

/**
 * The runtime plugins of a benchmark gateway whose one deployment's single replica is the engine child at
 * `engineUrl`, reached through the gpux runtime's `static` provisioner (an existing OpenAI-compatible
 * server by URL): core's deployment reconciler and serving directory, as in production.
 */
export function engineRuntime(engineUrl: string): GatewayPlugin[] {
  return [
    gpuxRuntime({ provisioner: { kind: 'static', servers: { [benchModel]: engineUrl }, pollIntervalMs: 50 } }),
    servingOptions({ pollIntervalMs: 200 }),
  ];
}

/** Creates {@link benchModel} and its one-replica deployment on a started gateway and waits until it is READY. */
export async function deployBenchModel(gateway: Gateway): Promise<void> {
  const services = gateway.resolve(coreServicesToken);
  const ctx = systemContext('bench');
  await services.models.create(ctx, 'bench', {
    kind: 'HUB_BASE_MODEL', displayName: 'Bench model', contextLength: 8192,
    baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] },
  }, 'bench-model');
  // One replica (the static server backs exactly one), so autoscaling never asks for a second.
  await services.deployments.create(ctx, 'bench', { baseModel: benchModel, acceleratorType: 'GPUX_H100_80GB', minReplicaCount: 1, maxReplicaCount: 1 }, { deploymentId: 'bench-deployment' });
  const until = Date.now() + 30_000;
  for (;;) {
    const deployment = await services.deployments.get(ctx, 'accounts/bench/deployments/bench-deployment');
    if (deployment.state === 'READY') return;
    if (Date.now() > until) throw new Error(`deployment stayed ${String(deployment.state)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
