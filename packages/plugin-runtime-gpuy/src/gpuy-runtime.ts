import { defineKubernetesVendorRuntime, type KubernetesVendorRuntimeOptions } from '@berth/runtime-kit';
import { gpuyAcceleratorTypes, gpuyLaunchProfile } from './catalogue.js';

/** Options of the GPUY runtime: those of every vendor runtime (see `@berth/runtime-kit`). */
export type GpuyRuntimeOptions = KubernetesVendorRuntimeOptions;

/**
 * The GPUY runtime: `createGpuyRuntime(options)` builds the runtime itself (for direct use and the contract
 * suite); `gpuyRuntime(options)` is the plugin (id `runtime-gpuy`) that contributes it to
 * `acceleratorRuntimesToken`. Provisioner: `simulated` by default; `static` or `kubernetes` through
 * `options.provisioner`.
 * @throws Error for invalid options (see `createVendorRuntime` in `@berth/core`).
 */
export const { create: createGpuyRuntime, plugin: gpuyRuntime } = defineKubernetesVendorRuntime<GpuyRuntimeOptions>({
  id: 'gpuy',
  vendor: 'gpuy',
  acceleratorTypes: gpuyAcceleratorTypes,
  launch: gpuyLaunchProfile,
});
