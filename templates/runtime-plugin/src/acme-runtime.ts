import { createVendorRuntime, vendorRuntimePlugin, type AcceleratorRuntime, type GatewayPlugin, type VendorRuntimeOptions } from '@berth/core';
import { acmeAcceleratorTypes, acmeLaunchProfile } from './acme-catalogue.js';

/**
 * The runtime itself — what `describeRuntimeContract` tests. Provisioner from the options: `simulated`
 * (default: reference engines on loopback), `static` (servers by URL), `kubernetes` (pass `api`), or
 * your own `Provisioner` implementation.
 */
export function createAcmeRuntime(options: VendorRuntimeOptions = {}): AcceleratorRuntime {
  return createVendorRuntime({ id: 'acme', vendor: 'acme', acceleratorTypes: acmeAcceleratorTypes, launch: acmeLaunchProfile }, options).runtime;
}

/** The plugin a host installs: `createGateway({ plugins: [storage, auth, acmeRuntime()] })`. */
export function acmeRuntime(options: VendorRuntimeOptions = {}): GatewayPlugin {
  const { runtime, ownsProvisioner } = createVendorRuntime(
    { id: 'acme', vendor: 'acme', acceleratorTypes: acmeAcceleratorTypes, launch: acmeLaunchProfile },
    options,
  );
  return vendorRuntimePlugin('runtime-acme', runtime, ownsProvisioner);
}
