import { isGatewayError } from '@berth/core';
import { buildGateway } from './gateway.js';
import { ModelCatalog } from './model-catalog.js';

/**
 * `npm start`: starts a gateway in this process, registers and deploys a model through the services,
 * lists what is READY, shows an authorization refusal, and stops. No port is opened for Berth's API.
 */
const gateway = buildGateway();
await gateway.start();
try {
  const catalog = new ModelCatalog(gateway, 'my-account');
  const system = catalog.context();
  const model = await catalog.register(system, 'llama-3-8b', 8_000_000_000n);
  console.log(`registered ${model.name} (${model.state})`);
  const deployment = await catalog.deploy(system, 'llama-3-8b', 'chat', 'GPUX_H100_80GB');
  console.log(`deployed ${deployment.name}: ${deployment.state}, ${deployment.acceleratorCount} × ${deployment.acceleratorType}`);
  console.log(`READY on GPUX_H100_80GB: ${(await catalog.readyOn(system, 'GPUX_H100_80GB')).join(', ')}`);
  try {
    await catalog.register(catalog.context({ userId: 'ivy', role: 'inference-user' }), 'mistral-7b', 7_000_000_000n);
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    console.log(`as an inference-user: ${error.code} (${error.message})`);
  }
} finally {
  await gateway.stop();
}
