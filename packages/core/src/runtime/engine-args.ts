import type { EngineArgs, SpeculativeDecoding } from '../ports/accelerator-runtime.js';
import { precisionEngineSettings } from './precision.js';
import { replicaContextLength, servedModelId } from './replica-spec.js';
import type { ReplicaSpec } from '../ports/provisioner.js';

/** Candidates per speculative step when the deployment names a draft model but no count. */
export const defaultDraftTokenCount = 4;
/** LoRA add-ons cached on the device when add-ons are enabled and no count is given. */
export const defaultNumPeftDeviceCached = 4;
/** The largest LoRA rank (`peftDetails.r`) a model may have: engines reserve room for it. */
export const maxAddonRank = 64;

/** LoRA add-ons a replica keeps loaded at once: `numPeftDeviceCached`, default 4. */
export function addonCacheSize(spec: ReplicaSpec): number {
  return positiveOr(spec.numPeftDeviceCached, defaultNumPeftDeviceCached);
}

/**
 * Derives engine arguments from a replica spec:
 * - tensor-parallel size from `acceleratorCount`;
 * - dtype / quantization / KV-cache dtype from `precision` ({@link precisionEngineSettings});
 * - max model length from `maxContextLength`, else the model's context length;
 * - speculative decoding: a `draftModel` wins (`draftTokenCount` candidates, default 4); otherwise
 *   `ngramSpeculationLength > 0` enables n-gram (prompt lookup) speculation with that lookup length and
 *   `draftTokenCount` (default 4) candidates;
 * - LoRA when `enableAddons`, caching {@link addonCacheSize} adapters.
 */
export function deriveEngineArgs(spec: ReplicaSpec, options: { port?: number } = {}): EngineArgs {
  const settings = precisionEngineSettings(spec.precision);
  let speculative: SpeculativeDecoding | undefined;
  if (spec.draftModel) {
    speculative = {
      method: 'draft_model',
      model: spec.draftModel,
      numSpeculativeTokens: positiveOr(spec.draftTokenCount, defaultDraftTokenCount),
    };
  } else if (spec.ngramSpeculationLength !== undefined && spec.ngramSpeculationLength > 0) {
    speculative = {
      method: 'ngram',
      promptLookupMax: spec.ngramSpeculationLength,
      numSpeculativeTokens: positiveOr(spec.draftTokenCount, defaultDraftTokenCount),
    };
  }
  return {
    model: spec.checkpointUri ?? spec.baseModel,
    servedModelName: servedModelId(spec),
    tensorParallelSize: spec.acceleratorCount,
    dtype: settings.dtype,
    ...(settings.quantization ? { quantization: settings.quantization } : {}),
    ...(settings.kvCacheDtype ? { kvCacheDtype: settings.kvCacheDtype } : {}),
    maxModelLen: replicaContextLength(spec),
    ...(speculative ? { speculative } : {}),
    ...(spec.enableAddons ? { lora: { maxLoras: addonCacheSize(spec) } } : {}),
    port: options.port ?? 8000,
    extraArgs: settings.extraArgs,
  };
}

/** Renders engine arguments as a command line (`--flag value` pairs). */
export function renderEngineArgv(args: EngineArgs): string[] {
  const argv = [
    '--model',
    args.model,
    '--served-model-name',
    args.servedModelName,
    '--tensor-parallel-size',
    String(args.tensorParallelSize),
    '--dtype',
    args.dtype,
  ];
  if (args.quantization) argv.push('--quantization', args.quantization);
  if (args.kvCacheDtype) argv.push('--kv-cache-dtype', args.kvCacheDtype);
  argv.push('--max-model-len', String(args.maxModelLen));
  if (args.speculative) {
    const config =
      args.speculative.method === 'draft_model'
        ? { method: 'draft_model', model: args.speculative.model, num_speculative_tokens: args.speculative.numSpeculativeTokens }
        : { method: 'ngram', prompt_lookup_max: args.speculative.promptLookupMax, num_speculative_tokens: args.speculative.numSpeculativeTokens };
    argv.push('--speculative-config', JSON.stringify(config));
  }
  if (args.lora) {
    // max_loras adapters on the device, as many in host memory (the gateway keeps no more loaded), and the
    // largest rank a PEFT add-on may have (r 4–64), since vLLM's default (16) would refuse larger ones.
    const max = String(args.lora.maxLoras);
    argv.push('--enable-lora', '--max-loras', max, '--max-cpu-loras', max, '--max-lora-rank', String(maxAddonRank));
  }
  argv.push(...args.extraArgs, '--host', '0.0.0.0', '--port', String(args.port));
  return argv;
}

function positiveOr(value: number | undefined, fallback: number): number {
  return value !== undefined && value > 0 ? value : fallback;
}
