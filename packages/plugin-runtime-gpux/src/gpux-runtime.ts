import type { KubeConfig } from '@kubernetes/client-node';
import { defineVendorRuntime, type VendorRuntimeOptions } from '@berth/core';
import { gpuxAcceleratorTypes, gpuxLaunchProfile } from './catalogue.js';
import { clientNodeKubernetesApi } from './kubernetes-client.js';

export interface GpuxRuntimeOptions extends VendorRuntimeOptions {
  /** KubeConfig for the `kubernetes` provisioner when it is given no `api`. Default: loaded from the environment. */
  readonly kubeConfig?: KubeConfig;
}

/**
 * The GPUX runtime: `createGpuxRuntime(options)` builds the runtime itself (for direct use and the contract
 * suite); `gpuxRuntime(options)` is the plugin (id `runtime-gpux`) that contributes it to
 * `acceleratorRuntimesToken`. Provisioner: `simulated` by default; `static` or `kubernetes` through
 * `options.provisioner`.
 * @throws Error for invalid options (see `createVendorRuntime`).
 */
export const { create: createGpuxRuntime, plugin: gpuxRuntime } = defineVendorRuntime<GpuxRuntimeOptions>(
  { id: 'gpux', vendor: 'gpux', acceleratorTypes: gpuxAcceleratorTypes, launch: gpuxLaunchProfile },
  (options) => clientNodeKubernetesApi(options.kubeConfig),
);
