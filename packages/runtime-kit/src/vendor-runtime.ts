import { defineVendorRuntime, type ExtraProvisionerBuilder, type VendorRuntimeDefinition, type VendorRuntimeOptions, type VendorRuntimePackage } from '@berth/core';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNodeKubernetesApi } from './kubernetes-client.js';
import type { KubernetesManifestOptions } from './kubernetes-manifests.js';
import { kubernetesProvisioner, type KubernetesApi } from './kubernetes-provisioner.js';

/** Options of the Kubernetes provisioner as a runtime plugin takes them. */
export interface KubernetesProvisionerChoice extends Partial<KubernetesManifestOptions> {
  readonly kind: 'kubernetes';
  /** The API to apply manifests through. Default: `@kubernetes/client-node` ({@link clientNodeKubernetesApi}). */
  readonly api?: KubernetesApi;
  /** Default `berth`. */
  readonly namespace?: string;
  readonly pollIntervalMs?: number;
  readonly failAfterRestarts?: number;
  readonly endpointFor?: (service: string, namespace: string, port: number) => string;
  /** How long the signed download URLs handed to replicas stay valid. Default 3600 s. */
  readonly downloadUrlTtlSeconds?: number;
}

/** Options of a vendor runtime that can also provision on Kubernetes. */
export interface KubernetesVendorRuntimeOptions extends VendorRuntimeOptions<KubernetesProvisionerChoice> {
  /**
   * KubeConfig for the `kubernetes` provisioner when it is given no `api`. Default: loaded from the
   * environment (in-cluster service account or `~/.kube/config`) on first use.
   */
  readonly kubeConfig?: KubeConfig;
}

/**
 * The builder of the `kubernetes` provisioner choice for a vendor.
 * @param defaultApi the API used when the choice names none; called at most once, on first use.
 */
export function kubernetesProvisionerBuilder(vendor: string, defaultApi: () => KubernetesApi): ExtraProvisionerBuilder<KubernetesProvisionerChoice> {
  return (choice, runtime) =>
    kubernetesProvisioner({ ...choice, api: choice.api ?? defaultApi(), vendor, renderLaunchSpec: (spec) => runtime.renderLaunchSpec(spec) });
}

/**
 * Everything a vendor plugin package needs from one definition, with the `simulated`, `static` and
 * `kubernetes` provisioners (or your own): a vendor package is its catalogue plus
 * `export const { create: createXRuntime, plugin: xRuntime } = defineKubernetesVendorRuntime(...)`.
 * @param defaultKubernetesApi builds the Kubernetes API from the options when the `kubernetes` provisioner is
 *   chosen without `api`. Default: `@kubernetes/client-node` with `options.kubeConfig`.
 */
export function defineKubernetesVendorRuntime<O extends KubernetesVendorRuntimeOptions = KubernetesVendorRuntimeOptions>(
  definition: VendorRuntimeDefinition,
  defaultKubernetesApi: (options: O) => KubernetesApi = (options) => clientNodeKubernetesApi(options.kubeConfig),
): VendorRuntimePackage<O> {
  return defineVendorRuntime<O, KubernetesProvisionerChoice>(definition, (options) =>
    kubernetesProvisionerBuilder(definition.vendor, () => defaultKubernetesApi(options)),
  );
}
