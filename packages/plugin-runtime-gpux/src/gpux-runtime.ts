import type { KubeConfig } from '@kubernetes/client-node';
import {
  createVendorRuntime,
  vendorRuntimePlugin,
  type AcceleratorRuntime,
  type GatewayPlugin,
  type VendorRuntimeOptions,
} from '@berth/core';
import { gpuxAcceleratorTypes, gpuxLaunchProfile } from './catalogue.js';
import { clientNodeKubernetesApi } from './kubernetes-client.js';

export interface GpuxRuntimeOptions extends VendorRuntimeOptions {
  /** KubeConfig for the `kubernetes` provisioner when it is given no `api`. Default: loaded from the environment. */
  readonly kubeConfig?: KubeConfig;
}

/**
 * The GPUX runtime itself (for direct use and the contract suite).
 * @throws Error for invalid options (see `createVendorRuntime`).
 */
export function createGpuxRuntime(options: GpuxRuntimeOptions = {}): AcceleratorRuntime {
  return createGpux(options).runtime;
}

function createGpux(options: GpuxRuntimeOptions) {
  return createVendorRuntime(
    { id: 'gpux', vendor: 'gpux', acceleratorTypes: gpuxAcceleratorTypes, launch: gpuxLaunchProfile },
    options,
    () => clientNodeKubernetesApi(options.kubeConfig),
  );
}

/**
 * The GPUX runtime plugin (id `runtime-gpux`): contributes the GPUX runtime to `acceleratorRuntimesToken`.
 * Provisioner: `simulated` by default; `static` or `kubernetes` through `options.provisioner`.
 */
export function gpuxRuntime(options: GpuxRuntimeOptions = {}): GatewayPlugin {
  const { runtime, ownsProvisioner } = createGpux(options);
  return vendorRuntimePlugin('runtime-gpux', runtime, ownsProvisioner);
}
