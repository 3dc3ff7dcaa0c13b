/**
 * @berth/runtime-kit — what accelerator runtime plugins are built from: `defineVendorRuntime` (a vendor is
 * its catalogue and launch profile), the provisioner choice (simulated, static, Kubernetes or your own),
 * and the Kubernetes provisioner with its manifests and `@kubernetes/client-node` adapter. Core stays
 * vendor- and platform-neutral; the vendor plugins share this kit instead of each carrying a copy.
 */
export * from './kubernetes-manifests.js';
export * from './kubernetes-provisioner.js';
export * from './kubernetes-client.js';
export * from './vendor-runtime.js';
export * from './accelerator-catalogue.js';
export * from './kubernetes-adapters.js';
export * from './model-fetcher.js';
export * from './kubernetes-trainer-manifests.js';
export * from './kubernetes-trainer.js';
