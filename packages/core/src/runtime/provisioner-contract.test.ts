import { startReferenceEngine } from '../engine/reference-engine.js';
import { describeProvisionerContract } from '../testing/provisioner-contract.js';
import { simulatedProvisioner } from './simulated-provisioner.js';
import { staticProvisioner } from './static-provisioner.js';

const spec = { baseModel: 'accounts/a/models/m', acceleratorType: 'GPUX_H100_80GB', acceleratorCount: 1 };

describeProvisionerContract('simulated', async () => ({
  provisioner: simulatedProvisioner({ delays: { schedulingMs: 5, downloadingMs: 5, initializingMs: 5 } }),
  spec,
}));

describeProvisionerContract('static', async () => {
  const engine = await startReferenceEngine({ modelIds: [spec.baseModel] });
  return {
    provisioner: staticProvisioner({ servers: { [spec.baseModel]: `${engine.url}/v1/` }, pollIntervalMs: 10 }),
    spec,
    cleanup: () => engine.close(),
  };
});
