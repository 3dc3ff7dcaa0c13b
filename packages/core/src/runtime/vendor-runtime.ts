import { definePlugin, type GatewayPlugin } from '../kernel/plugin.js';
import type { AcceleratorRuntime, AcceleratorTypeInfo, LaunchProfile } from '../ports/accelerator-runtime.js';
import type { Provisioner } from '../ports/provisioner.js';
import { createAcceleratorRuntime } from './accelerator-runtime.js';
import { simulatedProvisioner, type SimulatedProvisionerOptions } from './simulated-provisioner.js';
import type { SizingConstants } from './sizing.js';
import { staticProvisioner, type StaticProvisionerOptions } from './static-provisioner.js';
import { acceleratorRuntimesToken, imageEnginesToken } from '../kernel/tokens.js';
import type { ImageEngine } from '../ports/image-engine.js';
import { referenceImageEngine, type ReferenceImageEngineOptions } from '../engine/reference-image-engine.js';
import { upstreamImageEngine, type UpstreamImageEngineOptions } from '../engine/upstream-image-engine.js';

/**
 * Which image engine a runtime plugin serves (contributed to `imageEnginesToken`): `reference` draws
 * images in process with sharp (the simulated pool's engine), `upstream` calls an image server running on
 * the accelerators, `none` serves no images, or a ready-made {@link ImageEngine} (closed by its owner).
 */
export type ImageEngineChoice =
  | ({ readonly kind: 'reference' } & ReferenceImageEngineOptions)
  | ({ readonly kind: 'upstream' } & UpstreamImageEngineOptions)
  | { readonly kind: 'none' }
  | ImageEngine;

/**
 * Which provisioner a runtime plugin uses: `simulated` (the default), `static`, a ready-made
 * {@link Provisioner} (which the plugin then does not close on stop: its owner does), or a choice of a kind
 * core does not know (`X`, e.g. `kubernetes` from `@berth/runtime-kit`), built by an {@link ExtraProvisionerBuilder}.
 */
export type ProvisionerChoice<X extends { readonly kind: string } = never> =
  | ({ readonly kind: 'simulated' } & SimulatedProvisionerOptions)
  | ({ readonly kind: 'static' } & StaticProvisionerOptions)
  | Provisioner
  | X;

/** Options every vendor runtime plugin accepts. */
export interface VendorRuntimeOptions<X extends { readonly kind: string } = never> {
  /** Default `{ kind: 'simulated' }`. */
  readonly provisioner?: ProvisionerChoice<X>;
  /** Engine container image (launch specs). */
  readonly image?: string;
  /** Overrides of the vendor's launch profile (device resource name, visibility env var, node label, port, env). */
  readonly launch?: Partial<LaunchProfile>;
  /** Overrides of the sizing formula's constants. */
  readonly sizing?: Partial<SizingConstants>;
  /** The image engine served. Default: `reference` on the simulated provisioner, `none` on any other. */
  readonly images?: ImageEngineChoice;
}

/** What a vendor plugin declares: data only. */
export interface VendorRuntimeDefinition {
  readonly id: string;
  readonly vendor: string;
  readonly acceleratorTypes: readonly AcceleratorTypeInfo[];
  readonly launch: LaunchProfile;
}

/** Builds the provisioner of a choice of a kind core does not know; `runtime` renders launch specs. */
export type ExtraProvisionerBuilder<X> = (choice: X, runtime: Omit<AcceleratorRuntime, 'provisioner'>) => Provisioner;

/** The engine of a choice, and whether the plugin owns (closes) it. */
export function imageEngineOf(
  choice: ImageEngineChoice | undefined,
  simulated: boolean,
): { engine: ImageEngine | undefined; owned: boolean } {
  const resolved: ImageEngineChoice = choice ?? { kind: simulated ? 'reference' : 'none' };
  if ('generate' in resolved) return { engine: resolved, owned: false };
  switch (resolved.kind) {
    case 'reference':
      return { engine: referenceImageEngine(resolved), owned: true };
    case 'upstream':
      return { engine: upstreamImageEngine(resolved), owned: true };
    case 'none':
      return { engine: undefined, owned: false };
  }
}

function isProvisioner(choice: object): choice is Provisioner {
  return typeof (choice as Provisioner).startReplica === 'function';
}

/**
 * Builds a vendor's runtime from its data and the user's options.
 * @param buildExtra builds the provisioner of a choice of another kind than `simulated` and `static`.
 * @returns the runtime and whether the runtime owns (must close) its provisioner.
 * @throws Error for a provisioner kind nobody builds.
 */
export function createVendorRuntime<X extends { readonly kind: string } = never>(
  definition: VendorRuntimeDefinition,
  options: VendorRuntimeOptions<X> = {},
  buildExtra?: ExtraProvisionerBuilder<X>,
): { runtime: AcceleratorRuntime; ownsProvisioner: boolean } {
  const choice: ProvisionerChoice<X> = options.provisioner ?? { kind: 'simulated' };
  const launch: LaunchProfile = { ...definition.launch, ...options.launch, ...(options.image ? { image: options.image } : {}) };
  const runtime = createAcceleratorRuntime({
    id: definition.id,
    vendor: definition.vendor,
    acceleratorTypes: definition.acceleratorTypes,
    launch,
    ...(options.sizing ? { sizing: options.sizing } : {}),
    provisioner: (base) => {
      if (isProvisioner(choice)) return choice;
      if (choice.kind === 'simulated') return simulatedProvisioner(choice as SimulatedProvisionerOptions);
      if (choice.kind === 'static') return staticProvisioner(choice as StaticProvisionerOptions);
      if (!buildExtra) throw new Error(`runtime "${definition.id}": no provisioner of kind "${choice.kind}" (install @berth/runtime-kit for kubernetes)`);
      return buildExtra(choice as X, base);
    },
  });
  return { runtime, ownsProvisioner: !isProvisioner(choice) };
}

/**
 * The plugin of a vendor runtime: contributes the runtime to {@link acceleratorRuntimesToken} and its image
 * engine, if any, to `imageEnginesToken`; on stop, closes the provisioner and engine it created (timers,
 * pollers, simulated engines, connections; external replicas keep running).
 */
export function vendorRuntimePlugin(
  pluginId: string,
  runtime: AcceleratorRuntime,
  ownsProvisioner: boolean,
  images: { engine: ImageEngine | undefined; owned: boolean } = { engine: undefined, owned: false },
): GatewayPlugin {
  return definePlugin({
    id: pluginId,
    register(binder) {
      binder.contribute(acceleratorRuntimesToken, runtime);
      if (images.engine) binder.contribute(imageEnginesToken, images.engine);
    },
    async stop() {
      if (ownsProvisioner) await runtime.provisioner.close();
      if (images.owned) await images.engine?.close?.();
    },
  });
}

/** A vendor runtime ready to publish: its runtime factory and its plugin factory. */
export interface VendorRuntimePackage<O> {
  /** The runtime itself (for direct use and `describeRuntimeContract`). */
  create(options?: O): AcceleratorRuntime;
  /** The plugin a host installs (id `runtime-<id>`); it closes the provisioner it created on stop. */
  plugin(options?: O): GatewayPlugin;
}

/**
 * Everything a vendor plugin package needs from one definition, with the `simulated` and `static`
 * provisioners (or your own). `@berth/runtime-kit`'s `defineKubernetesVendorRuntime` adds `kubernetes`.
 * @param buildExtra builds, from the options, the provisioner of a choice of another kind.
 */
export function defineVendorRuntime<O extends VendorRuntimeOptions<X>, X extends { readonly kind: string } = never>(
  definition: VendorRuntimeDefinition,
  buildExtra?: (options: O) => ExtraProvisionerBuilder<X>,
): VendorRuntimePackage<O> {
  const build = (options: O) => createVendorRuntime<X>(definition, options, buildExtra?.(options));
  return {
    create: (options = {} as O) => build(options).runtime,
    plugin: (options = {} as O) => {
      const { runtime, ownsProvisioner } = build(options);
      const images = imageEngineOf(options.images, runtime.provisioner.kind === 'simulated');
      return vendorRuntimePlugin(`runtime-${definition.id}`, runtime, ownsProvisioner, images);
    },
  };
}
