import {
  defineVendorRuntime, isGatewayError, modelFileSourcesToken, modelServiceToken, trainerToken, trainingFilesToken, type ExtraProvisionerBuilder,
  type GatewayPlugin, type VendorRuntimeDefinition, type VendorRuntimeOptions, type VendorRuntimePackage,
} from '@berth/core';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNodeKubernetesApi } from './kubernetes-client.js';
import type { KubernetesManifestOptions } from './kubernetes-manifests.js';
import { kubernetesProvisioner, type KubernetesApi } from './kubernetes-provisioner.js';
import { kubernetesTrainer, type KubernetesTrainerOptions } from './kubernetes-trainer.js';

/**
 * The accelerator trainer as a runtime plugin takes it: reinforcement fine-tuning steps run as Kubernetes Jobs
 * of `image` (a trainer container following the contract in docs/accelerator-trainers.md) on this vendor's
 * accelerators. Given, the plugin replaces core's reference trainer.
 */
export interface KubernetesTrainerChoice
  extends Omit<KubernetesTrainerOptions, 'api' | 'files' | 'vendor' | 'launch' | 'baseModelFiles'> {
  readonly kind: 'kubernetes';
  /** The API to create Jobs through. Default: the one the `kubernetes` provisioner uses (`@kubernetes/client-node`). */
  readonly api?: KubernetesApi;
}

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
  /** Run reinforcement fine-tuning steps on this vendor's accelerators (see {@link KubernetesTrainerChoice}). */
  readonly trainer?: KubernetesTrainerChoice;
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
  const runtime = defineVendorRuntime<O, KubernetesProvisionerChoice>(definition, (options) =>
    kubernetesProvisionerBuilder(definition.vendor, () => defaultKubernetesApi(options)),
  );
  return {
    create: runtime.create,
    plugin: (options = {} as O) => withTrainer(runtime.plugin(options), definition, options.trainer, () => defaultKubernetesApi(options)),
  };
}

/** The plugin, binding the vendor's Kubernetes trainer over core's reference trainer when a trainer is chosen. */
function withTrainer(plugin: GatewayPlugin, definition: VendorRuntimeDefinition, choice: KubernetesTrainerChoice | undefined, defaultApi: () => KubernetesApi): GatewayPlugin {
  if (!choice) return plugin;
  const { kind: _kind, api, ...trainerOptions } = choice;
  return {
    ...plugin,
    register(binder) {
      plugin.register(binder);
      binder.bind({
        token: trainerToken,
        deps: [trainingFilesToken, modelServiceToken, modelFileSourcesToken],
        factory: (files, models, sources) =>
          kubernetesTrainer({
            ...trainerOptions,
            api: api ?? defaultApi(),
            files,
            vendor: definition.vendor,
            launch: definition.launch,
            baseModelFiles: async (ctx, baseModel) => {
              // A base model this account cannot read as a record (another account's public model) has no uploaded files to hand over.
              const model = await models.get(ctx, baseModel).catch((error: unknown) => {
                if (isGatewayError(error) && (error.code === 'NOT_FOUND' || error.code === 'PERMISSION_DENIED')) return undefined;
                throw error;
              });
              return model ? sources.sourceOf(ctx, baseModel, { ...model }) : undefined;
            },
          }),
        override: true,
      });
    },
  };
}
