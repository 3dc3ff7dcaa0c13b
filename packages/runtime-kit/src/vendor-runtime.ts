import { definePlugin, createAcceleratorRuntime, simulatedProvisioner, staticProvisioner, acceleratorRuntimesToken, type GatewayPlugin, type SimulatedProvisionerOptions, type SizingConstants, type StaticProvisionerOptions, type AcceleratorTypeInfo, type AcceleratorRuntime, type LaunchProfile, type Provisioner } from '@berth/core';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNodeKubernetesApi } from './kubernetes-client.js';
import type { KubernetesManifestOptions } from './kubernetes-manifests.js';
import { kubernetesProvisioner, type KubernetesApi } from './kubernetes-provisioner.js';

/** Options of the Kubernetes provisioner as a runtime plugin takes them. */
export interface KubernetesProvisionerChoice extends Partial<KubernetesManifestOptions> {
  readonly kind: 'kubernetes';
  /** The API to apply manifests through. Default: the plugin's `@kubernetes/client-node` implementation. */
  readonly api?: KubernetesApi;
  /** Default `berth`. */
  readonly namespace?: string;
  readonly pollIntervalMs?: number;
  readonly failAfterRestarts?: number;
  readonly endpointFor?: (service: string, namespace: string, port: number) => string;
}

/**
 * Which provisioner a runtime plugin uses: `simulated` (the default), `static`, `kubernetes`, or a ready-made
 * {@link Provisioner} (which the plugin then does not close on stop: its owner does).
 */
export type ProvisionerChoice =
  | ({ readonly kind: 'simulated' } & SimulatedProvisionerOptions)
  | ({ readonly kind: 'static' } & StaticProvisionerOptions)
  | KubernetesProvisionerChoice
  | Provisioner;

/** Options every vendor runtime plugin accepts. */
export interface VendorRuntimeOptions {
  /** Default `{ kind: 'simulated' }`. */
  readonly provisioner?: ProvisionerChoice;
  /** Engine container image (Kubernetes launch specs). */
  readonly image?: string;
  /** Overrides of the vendor's launch profile (device resource name, visibility env var, node label, port, env). */
  readonly launch?: Partial<LaunchProfile>;
  /** Overrides of the sizing formula's constants. */
  readonly sizing?: Partial<SizingConstants>;
  /**
   * KubeConfig for the `kubernetes` provisioner when it is given no `api`. Default: loaded from the
   * environment (in-cluster service account or `~/.kube/config`) on first use.
   */
  readonly kubeConfig?: KubeConfig;
}

/** What a vendor plugin declares: data only. */
export interface VendorRuntimeDefinition {
  readonly id: string;
  readonly vendor: string;
  readonly acceleratorTypes: readonly AcceleratorTypeInfo[];
  readonly launch: LaunchProfile;
}

function isProvisioner(choice: ProvisionerChoice): choice is Provisioner {
  return typeof (choice as Provisioner).startReplica === 'function';
}

/**
 * Builds a vendor's runtime from its data and the user's options.
 * @param defaultKubernetesApi builds the Kubernetes API when the `kubernetes` provisioner is chosen without
 *   `api`; called at most once, on first use.
 * @returns the runtime and whether the runtime owns (must close) its provisioner.
 * @throws Error for a `kubernetes` choice without `api` when no default is available.
 */
export function createVendorRuntime(
  definition: VendorRuntimeDefinition,
  options: VendorRuntimeOptions = {},
  defaultKubernetesApi?: () => KubernetesApi,
): { runtime: AcceleratorRuntime; ownsProvisioner: boolean } {
  const choice: ProvisionerChoice = options.provisioner ?? { kind: 'simulated' };
  const launch: LaunchProfile = { ...definition.launch, ...options.launch, ...(options.image ? { image: options.image } : {}) };
  const owns = !isProvisioner(choice);
  const runtime = createAcceleratorRuntime({
    id: definition.id,
    vendor: definition.vendor,
    acceleratorTypes: definition.acceleratorTypes,
    launch,
    ...(options.sizing ? { sizing: options.sizing } : {}),
    provisioner: (base) => {
      if (isProvisioner(choice)) return choice;
      switch (choice.kind) {
        case 'simulated':
          return simulatedProvisioner(choice);
        case 'static':
          return staticProvisioner(choice);
        case 'kubernetes': {
          const api = choice.api ?? defaultKubernetesApi?.();
          if (!api) throw new Error(`runtime "${definition.id}": the kubernetes provisioner needs an api`);
          return kubernetesProvisioner({ ...choice, api, vendor: definition.vendor, renderLaunchSpec: (spec) => base.renderLaunchSpec(spec) });
        }
      }
    },
  });
  return { runtime, ownsProvisioner: owns };
}

/**
 * The plugin of a vendor runtime: contributes the runtime to {@link acceleratorRuntimesToken} and, on stop,
 * closes the provisioner it created (timers, pollers, simulated engines; external replicas keep running).
 */
export function vendorRuntimePlugin(pluginId: string, runtime: AcceleratorRuntime, ownsProvisioner: boolean): GatewayPlugin {
  return definePlugin({
    id: pluginId,
    register(binder) {
      binder.contribute(acceleratorRuntimesToken, runtime);
    },
    async stop() {
      if (ownsProvisioner) await runtime.provisioner.close();
    },
  });
}

/** A vendor runtime ready to publish: its runtime factory and its plugin factory. */
export interface VendorRuntimePackage<O extends VendorRuntimeOptions> {
  /** The runtime itself (for direct use and `describeRuntimeContract`). */
  create(options?: O): AcceleratorRuntime;
  /** The plugin a host installs (id `runtime-<id>`); it closes the provisioner it created on stop. */
  plugin(options?: O): GatewayPlugin;
}

/**
 * Everything a vendor plugin package needs from one definition: a vendor package is its catalogue plus
 * `export const { create: createXRuntime, plugin: xRuntime } = defineVendorRuntime(...)`.
 * @param defaultKubernetesApi builds the Kubernetes API from the options when the `kubernetes`
 *   provisioner is chosen without `api`. Default: `@kubernetes/client-node` with `options.kubeConfig`.
 */
export function defineVendorRuntime<O extends VendorRuntimeOptions = VendorRuntimeOptions>(
  definition: VendorRuntimeDefinition,
  defaultKubernetesApi: (options: O) => KubernetesApi = (options) => clientNodeKubernetesApi(options.kubeConfig),
): VendorRuntimePackage<O> {
  const build = (options: O) =>
    createVendorRuntime(definition, options, () => defaultKubernetesApi(options));
  return {
    create: (options = {} as O) => build(options).runtime,
    plugin: (options = {} as O) => {
      const { runtime, ownsProvisioner } = build(options);
      return vendorRuntimePlugin(`runtime-${definition.id}`, runtime, ownsProvisioner);
    },
  };
}
