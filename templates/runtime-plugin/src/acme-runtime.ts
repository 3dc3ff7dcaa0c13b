import { defineKubernetesVendorRuntime } from '@berth/runtime-kit';
import { acmeAcceleratorTypes, acmeLaunchProfile } from './acme-catalogue.js';

/**
 * `createAcmeRuntime(options)` is the runtime itself — what `describeRuntimeContract` tests;
 * `acmeRuntime(options)` is the plugin a host installs:
 * `createGateway({ plugins: [storage, auth, acmeRuntime()] })`. Provisioner from the options: `simulated`
 * (default: reference engines on loopback), `static` (servers by URL), `kubernetes` (pass `kubeConfig` or `api`), or your
 * own `Provisioner` implementation.
 */
export const { create: createAcmeRuntime, plugin: acmeRuntime } = defineKubernetesVendorRuntime({
  id: 'acme',
  vendor: 'acme',
  acceleratorTypes: acmeAcceleratorTypes,
  launch: acmeLaunchProfile,
});
