import { defineKubernetesVendorRuntime, type KubernetesVendorRuntimeOptions } from '@berth/runtime-kit';
import { gpuxAcceleratorTypes, gpuxLaunchProfile } from './catalogue.js';

/** Options of the GPUX runtime: those of every vendor runtime (see `@berth/runtime-kit`). */
export type GpuxRuntimeOptions = KubernetesVendorRuntimeOptions;

/**
 * The GPUX runtime: `createGpuxRuntime(options)` builds the runtime itself (for direct use and the contract
 * suite); `gpuxRuntime(options)` is the plugin (id `runtime-gpux`) that contributes it to
 * `acceleratorRuntimesToken`. Provisioner: `simulated` by default; `static` or `kubernetes` through
 * `options.provisioner`.
 * @throws Error for invalid options (see `createVendorRuntime` in `@berth/core`).
 */
export const { create: createGpuxRuntime, plugin: gpuxRuntime } = defineKubernetesVendorRuntime<GpuxRuntimeOptions>({
  id: 'gpux',
  vendor: 'gpux',
  acceleratorTypes: gpuxAcceleratorTypes,
  launch: gpuxLaunchProfile,
});
