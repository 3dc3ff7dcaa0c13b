import { invalidArgument } from '../errors/index.js';
import type { AcceleratorRuntime, AcceleratorSelection, AcceleratorTypeInfo, LaunchProfile } from '../ports/accelerator-runtime.js';
import type { Provisioner } from '../ports/provisioner.js';
import { deriveEngineArgs, renderEngineArgv } from './engine-args.js';
import { vllmAdapterApi } from './engine-adapter-api.js';
import { effectivePrecision, isPrecision } from './precision.js';
import { checkAcceleratorCount, defaultSizingConstants, estimateAcceleratorCount, type SizingConstants } from './sizing.js';

export interface AcceleratorRuntimeDefinition {
  readonly id: string;
  readonly vendor: string;
  readonly acceleratorTypes: readonly AcceleratorTypeInfo[];
  readonly launch: LaunchProfile;
  /** The provisioner, or a function building it from the runtime (the Kubernetes one renders launch specs). */
  readonly provisioner: Provisioner | ((runtime: Omit<AcceleratorRuntime, 'provisioner'>) => Provisioner);
  readonly sizing?: Partial<SizingConstants>;
}

/**
 * Builds an {@link AcceleratorRuntime} from data: a catalogue, a launch profile and a provisioner. Vendor plugins
 * are thin wrappers around this.
 * @throws Error when the catalogue is empty, has duplicate types, or a type's vendor differs.
 */
export function createAcceleratorRuntime(definition: AcceleratorRuntimeDefinition): AcceleratorRuntime {
  const { id, vendor, acceleratorTypes, launch } = definition;
  if (acceleratorTypes.length === 0) throw new Error(`runtime "${id}" declares no accelerator types`);
  const byType = new Map<string, AcceleratorTypeInfo>();
  for (const info of acceleratorTypes) {
    if (byType.has(info.type)) throw new Error(`runtime "${id}" declares ${info.type} twice`);
    if (info.vendor !== vendor) throw new Error(`runtime "${id}" declares ${info.type} with vendor "${info.vendor}", not "${vendor}"`);
    byType.set(info.type, info);
  }
  const constants: SizingConstants = { ...defaultSizingConstants, ...definition.sizing };

  const validate = (selection: AcceleratorSelection): AcceleratorTypeInfo => {
    const info = byType.get(selection.acceleratorType);
    if (!info) {
      throw invalidArgument(
        `acceleratorType ${String(selection.acceleratorType)} is not served by runtime "${id}" (it serves ${[...byType.keys()].join(', ')})`,
        { field: 'acceleratorType' },
      );
    }
    if (selection.precision !== undefined && !isPrecision(selection.precision)) {
      throw invalidArgument(`precision ${String(selection.precision)} is not a known precision`, { field: 'precision' });
    }
    const precision = effectivePrecision(selection.precision);
    if (!info.supportedPrecisions.includes(precision)) {
      throw invalidArgument(
        `precision ${precision} is not supported on acceleratorType ${info.type}; supported: ${info.supportedPrecisions.join(', ')}`,
        { field: 'precision', reason: 'UNSUPPORTED_PRECISION' },
      );
    }
    return info;
  };

  const base: Omit<AcceleratorRuntime, 'provisioner'> = {
    id,
    vendor,
    acceleratorTypes,
    describe: (acceleratorType) => byType.get(acceleratorType),
    validate,
    estimateSize(input) {
      return estimateAcceleratorCount(validate(input), input, constants);
    },
    checkSize(input) {
      return checkAcceleratorCount(validate(input), input.acceleratorCount, input, constants);
    },
    renderLaunchSpec(spec) {
      const info = validate(spec);
      checkAcceleratorCount(info, spec.acceleratorCount, {
        parameterCount: spec.parameterCount ?? '1',
        disableDeploymentSizeValidation: true,
      });
      const port = launch.port ?? 8000;
      const engineArgs = deriveEngineArgs(spec, { port });
      const devices = Array.from({ length: spec.acceleratorCount }, (_, i) => String(i)).join(',');
      return {
        vendor,
        acceleratorType: info.type,
        acceleratorCount: spec.acceleratorCount,
        image: launch.image,
        args: renderEngineArgv(engineArgs),
        engineArgs,
        env: { ...launch.env, ...(spec.enableAddons ? (launch.adapterApi ?? vllmAdapterApi).env : {}), [launch.visibleDevicesEnv]: devices },
        resources: { [launch.deviceResource]: spec.acceleratorCount },
        nodeSelector: { [launch.acceleratorTypeLabel]: info.type },
        port,
        ...(spec.enableAddons ? { adapterApi: launch.adapterApi ?? vllmAdapterApi } : {}),
      };
    },
  };
  const provisioner = typeof definition.provisioner === 'function' ? definition.provisioner(base) : definition.provisioner;
  return { ...base, provisioner };
}

/**
 * The runtime serving an accelerator type.
 * @throws GatewayError INVALID_ARGUMENT (field `acceleratorType`) when no installed runtime serves it.
 */
export function findRuntime(runtimes: readonly AcceleratorRuntime[], acceleratorType: string): AcceleratorRuntime {
  const runtime = runtimes.find((r) => r.describe(acceleratorType) !== undefined);
  if (!runtime) {
    const served = runtimes.flatMap((r) => r.acceleratorTypes.map((t) => t.type));
    throw invalidArgument(
      `acceleratorType ${acceleratorType} is not served by any installed runtime plugin` +
        (served.length > 0 ? ` (served: ${served.join(', ')})` : ' (no runtime plugin is installed)'),
      { field: 'acceleratorType' },
    );
  }
  return runtime;
}
