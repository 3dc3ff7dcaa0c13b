import { invalidArgument } from '../errors/index.js';
import type { AcceleratorTypeInfo, AcceleratorTypeName } from './accelerator.js';
import { deriveEngineArgs, renderEngineArgv, type EngineArgs } from './engine-args.js';
import { effectivePrecision, isPrecision, type Precision } from './precision.js';
import type { Provisioner } from './provisioner.js';
import type { ReplicaSpec } from './replica-spec.js';
import {
  checkAcceleratorCount,
  defaultSizingConstants,
  estimateAcceleratorCount,
  type SizingConstants,
  type SizingEstimate,
  type SizingInput,
} from './sizing.js';

/** How a vendor's replicas are launched on a container platform. Data only: rendering is shared. */
export interface LaunchProfile {
  /** Container image of the inference engine. */
  readonly image: string;
  /** Extended resource name that requests accelerators, e.g. `gpux.example/gpu`. */
  readonly deviceResource: string;
  /** Environment variable that lists the devices a container may see, e.g. `GPUX_VISIBLE_DEVICES`. */
  readonly visibleDevicesEnv: string;
  /** Node label whose value is the accelerator type, e.g. `gpux.example/accelerator-type`. */
  readonly acceleratorTypeLabel: string;
  /** Port the engine listens on inside the container. Default 8000. */
  readonly port?: number;
  /** Extra environment for every replica of this vendor. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A rendered, platform-neutral description of how to run one replica. */
export interface LaunchSpec {
  readonly vendor: string;
  readonly acceleratorType: AcceleratorTypeName;
  readonly acceleratorCount: number;
  readonly image: string;
  /** Engine command line (`--flag value` pairs). */
  readonly args: readonly string[];
  readonly engineArgs: EngineArgs;
  readonly env: Readonly<Record<string, string>>;
  /** Resource requests/limits, e.g. `{ 'gpux.example/gpu': 4 }`. */
  readonly resources: Readonly<Record<string, number>>;
  /** Node selector pinning the replica to nodes with its accelerator type. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly port: number;
}

/** Input of {@link AcceleratorRuntime.validate}. */
export interface AcceleratorSelection {
  readonly acceleratorType: AcceleratorTypeName;
  /** Absent or PRECISION_UNSPECIFIED means the default precision (BF16). */
  readonly precision?: Precision;
}

/**
 * The runtime port: one accelerator vendor's catalogue, rules and provisioning. Runtime plugins contribute one
 * to `acceleratorRuntimesToken`; the deployment services pick the runtime whose catalogue has the deployment's
 * accelerator type ({@link findRuntime}). Every adapter must pass `describeRuntimeContract` from
 * `@berth/core/testing`.
 */
export interface AcceleratorRuntime {
  /** Stable id, e.g. `gpux`. */
  readonly id: string;
  /** Vendor id; every declared type's `vendor` equals it. */
  readonly vendor: string;
  /** The accelerator types this runtime serves (non-empty, unique `type`s). */
  readonly acceleratorTypes: readonly AcceleratorTypeInfo[];
  /** Starts and stops this vendor's replicas. */
  readonly provisioner: Provisioner;
  /** The declaration of a type, or undefined when this runtime does not serve it. Never throws. */
  describe(acceleratorType: string): AcceleratorTypeInfo | undefined;
  /**
   * Checks an (acceleratorType, precision) combination.
   * @returns the accelerator's declaration.
   * @throws GatewayError INVALID_ARGUMENT, field `acceleratorType`, when this runtime does not serve the type;
   *   field `precision`, when the precision is unknown or the type does not support it (the message names both
   *   and lists the supported precisions).
   */
  validate(selection: AcceleratorSelection): AcceleratorTypeInfo;
  /**
   * The minimum accelerators per replica for a base model (the shape's default `acceleratorCount`).
   * @throws GatewayError INVALID_ARGUMENT as {@link validate}; field `parameterCount` for a malformed count;
   *   field `acceleratorCount` when the model does not fit on the largest replica of the type.
   */
  estimateSize(input: AcceleratorSelection & SizingInput): SizingEstimate;
  /**
   * Checks an explicit `acceleratorCount`: a tensor-parallel size the type allows and, unless
   * `disableDeploymentSizeValidation`, at least {@link estimateSize}'s result.
   * @returns the estimate, or undefined when size validation is disabled.
   * @throws GatewayError INVALID_ARGUMENT as {@link estimateSize}, and field `acceleratorCount` when the count is
   *   not allowed or too small.
   */
  checkSize(
    input: AcceleratorSelection & SizingInput & { readonly acceleratorCount: number; readonly disableDeploymentSizeValidation?: boolean },
  ): SizingEstimate | undefined;
  /**
   * Renders how to launch one replica (image, engine arguments, device requests, environment).
   * @throws GatewayError INVALID_ARGUMENT as {@link validate}, and field `acceleratorCount` for a count the type
   *   does not allow.
   */
  renderLaunchSpec(spec: ReplicaSpec): LaunchSpec;
}

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
        env: { ...launch.env, [launch.visibleDevicesEnv]: devices },
        resources: { [launch.deviceResource]: spec.acceleratorCount },
        nodeSelector: { [launch.acceleratorTypeLabel]: info.type },
        port,
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
