import type { Precision } from '../contracts/precision.js';
import type { AcceleratorTypeName, Provisioner, ReplicaSpec } from './provisioner.js';

export type { AcceleratorTypeName };

/** What a runtime declares about one accelerator type. */
export interface AcceleratorTypeInfo {
  /** UPPER_SNAKE enum value, e.g. `GPUX_H100_80GB`. */
  readonly type: AcceleratorTypeName;
  /** Vendor id, equal to the owning runtime's `vendor` (e.g. `gpux`). */
  readonly vendor: string;
  /** Memory of one accelerator in GiB (the nominal figure in the type's name). */
  readonly memoryGiB: number;
  /** Precisions the hardware (and the runtime's engine image) can serve. Always includes FP16 or BF16. */
  readonly supportedPrecisions: readonly Precision[];
  /** Hardware generation within the vendor, 1 = oldest supported. Higher generations add number formats. */
  readonly generation: number;
  /** Human-readable generation / family label. */
  readonly generationName: string;
  /** Most accelerators of this type one replica may span (one node; tensor parallelism stays on a node). */
  readonly maxAcceleratorsPerReplica: number;
}

/** Speculative decoding settings derived from a deployment. */
export type SpeculativeDecoding =
  | { readonly method: 'draft_model'; readonly model: string; readonly numSpeculativeTokens: number }
  | { readonly method: 'ngram'; readonly promptLookupMax: number; readonly numSpeculativeTokens: number };

/**
 * Arguments of an OpenAI-compatible inference engine, derived from a deployment. Vendor-neutral: every runtime
 * renders them the same way (vLLM-style flags), only device names and images differ.
 */
export interface EngineArgs {
  /** What the engine loads: the checkpoint URI or the model name. */
  readonly model: string;
  readonly servedModelName: string;
  /** = acceleratorCount. */
  readonly tensorParallelSize: number;
  readonly dtype: 'float16' | 'bfloat16';
  readonly quantization?: string;
  readonly kvCacheDtype?: 'fp8';
  readonly maxModelLen: number;
  readonly speculative?: SpeculativeDecoding;
  readonly lora?: { readonly maxLoras: number };
  readonly port: number;
  /** Flags a precision variant adds. */
  readonly extraArgs: readonly string[];
}

export interface SizingInput {
  /** The base model's parameter count, an int64 carried as a decimal string (spec convention). */
  readonly parameterCount: string;
  readonly precision?: Precision;
  /** Context length to budget for; 0 or absent means {@link defaultSizingContextLength}. */
  readonly contextLength?: number;
}

/** The result of sizing: the minimum replica size plus the figures it came from (for messages and UIs). */
export interface SizingEstimate {
  /** Minimum accelerators per replica: a tensor-parallel size (1, 2, 4 or 8). */
  readonly acceleratorCount: number;
  /** Accelerators the memory alone needs before rounding up to a power of two. */
  readonly minimumAccelerators: number;
  readonly requiredBytes: number;
  readonly weightBytes: number;
  readonly kvCacheBytes: number;
  readonly overheadBytes: number;
  /** Bytes one accelerator offers the engine (memory × utilization). */
  readonly usableBytesPerAccelerator: number;
  readonly contextLength: number;
}

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
  /** How the engine loads LoRA add-ons at run time. Default: vLLM's routes ({@link EngineAdapterApi}). */
  readonly adapterApi?: EngineAdapterApi;
}

/**
 * An engine's routes for LoRA adapters at run time, and the environment that enables them on a deployment
 * with add-ons. vLLM: `POST /v1/load_lora_adapter` `{lora_name, lora_path}`, `POST /v1/unload_lora_adapter`
 * `{lora_name}`, adapters listed by `GET /v1/models` with a `parent`, enabled by
 * `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`. SGLang serves the same bodies on `/load_lora_adapter` and
 * `/unload_lora_adapter`.
 */
export interface EngineAdapterApi {
  readonly loadPath: string;
  readonly unloadPath: string;
  /** Lists the served models, adapters among them with a non-null `parent`. */
  readonly modelsPath: string;
  /** Set on replicas of deployments with `enableAddons`. */
  readonly env: Readonly<Record<string, string>>;
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
  /** How the engine loads add-ons at run time; set when the replica serves add-ons (`enableAddons`). */
  readonly adapterApi?: EngineAdapterApi;
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
