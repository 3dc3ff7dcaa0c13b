import type { KubeConfig } from '@kubernetes/client-node';
import { defineVendorRuntime, type VendorRuntimeOptions } from '@berth/core';
import { gpuyAcceleratorTypes, gpuyLaunchProfile } from './catalogue.js';
import { clientNodeKubernetesApi } from './kubernetes-client.js';

export interface GpuyRuntimeOptions extends VendorRuntimeOptions {
  /** KubeConfig for the `kubernetes` provisioner when it is given no `api`. Default: loaded from the environment. */
  readonly kubeConfig?: KubeConfig;
}

/**
 * The GPUY runtime: `createGpuyRuntime(options)` builds the runtime itself (for direct use and the contract
 * suite); `gpuyRuntime(options)` is the plugin (id `runtime-gpuy`) that contributes it to
 * `acceleratorRuntimesToken`. Provisioner: `simulated` by default; `static` or `kubernetes` through
 * `options.provisioner`.
 * @throws Error for invalid options (see `createVendorRuntime`).
 */
export const { create: createGpuyRuntime, plugin: gpuyRuntime } = defineVendorRuntime<GpuyRuntimeOptions>(
  { id: 'gpuy', vendor: 'gpuy', acceleratorTypes: gpuyAcceleratorTypes, launch: gpuyLaunchProfile },
  (options) => clientNodeKubernetesApi(options.kubeConfig),
);
