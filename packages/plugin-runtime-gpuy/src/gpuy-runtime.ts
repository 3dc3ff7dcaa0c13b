import type { KubeConfig } from '@kubernetes/client-node';
import {
  createVendorRuntime,
  vendorRuntimePlugin,
  type AcceleratorRuntime,
  type GatewayPlugin,
  type VendorRuntimeOptions,
} from '@berth/core';
import { gpuyAcceleratorTypes, gpuyLaunchProfile } from './catalogue.js';
import { clientNodeKubernetesApi } from './kubernetes-client.js';

export interface GpuyRuntimeOptions extends VendorRuntimeOptions {
  /** KubeConfig for the `kubernetes` provisioner when it is given no `api`. Default: loaded from the environment. */
  readonly kubeConfig?: KubeConfig;
}

/**
 * The GPUY runtime itself (for direct use and the contract suite).
 * @throws Error for invalid options (see `createVendorRuntime`).
 */
export function createGpuyRuntime(options: GpuyRuntimeOptions = {}): AcceleratorRuntime {
  return createGpuy(options).runtime;
}

function createGpuy(options: GpuyRuntimeOptions) {
  return createVendorRuntime(
    { id: 'gpuy', vendor: 'gpuy', acceleratorTypes: gpuyAcceleratorTypes, launch: gpuyLaunchProfile },
    options,
    () => clientNodeKubernetesApi(options.kubeConfig),
  );
}

/**
 * The GPUY runtime plugin (id `runtime-gpuy`): contributes the GPUY runtime to `acceleratorRuntimesToken`.
 * Provisioner: `simulated` by default; `static` or `kubernetes` through `options.provisioner`.
 */
export function gpuyRuntime(options: GpuyRuntimeOptions = {}): GatewayPlugin {
  const { runtime, ownsProvisioner } = createGpuy(options);
  return vendorRuntimePlugin('runtime-gpuy', runtime, ownsProvisioner);
}
