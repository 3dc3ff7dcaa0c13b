import { referenceVocabulary } from './vocabulary.js';

/**
 * The reference engine's own trainable LoRA add-on format ("reference word LoRA", version 1): a PEFT LoRA
 * adapter on one module, `lm_head`, whose low-rank update shapes the engine's word choice.
 *
 * The engine has no hidden state; it takes a fixed one, `h` = a vector of {@link referenceHiddenSize} ones.
 * Its base `lm_head` gives every word of {@link referenceVocabulary} the logit 0 (the base samples words
 * uniformly). The add-on adds the LoRA update `(lora_alpha / r) · B · A · h` to those logits: one bias per
 * word. Files:
 *
 * - `adapter_config.json`: `peft_type` `LORA`, `r`, `lora_alpha` (default `r`), `target_modules`
 *   `["lm_head"]`, `base_model_name_or_path`, `task_type` `CAUSAL_LM`.
 * - `adapter_model.safetensors`: `__metadata__` `{format: "pt", berth_reference_engine: "word-lora/1"}`
 *   and two F32 tensors, `base_model.model.lm_head.lora_A.weight` of shape `[r, 16]` and
 *   `base_model.model.lm_head.lora_B.weight` of shape `[V, r]` (V = the vocabulary's 64 words, in its order).
 *
 * An adapter without the metadata marker is not of this format: the engine keeps only its digest.
 */
export const referenceLoraFormat = 'word-lora/1';
/** The `__metadata__` key that marks an adapter of the reference engine's format. */
export const referenceLoraMetadataKey = 'berth_reference_engine';
/** Length of the engine's fixed hidden state `h` (all ones): the columns of `lora_A`. */
export const referenceHiddenSize = 16;
/** The one module the reference add-on adapts. */
export const referenceLoraModule = 'lm_head';
export const referenceLoraTensorA = 'base_model.model.lm_head.lora_A.weight';
export const referenceLoraTensorB = 'base_model.model.lm_head.lora_B.weight';
export const referenceAdapterConfigFile = 'adapter_config.json';
export const referenceAdapterWeightsFile = 'adapter_model.safetensors';

/** The parameters of a reference add-on. */
export interface ReferenceLoraWeights {
  readonly rank: number;
  readonly alpha: number;
  /** `lora_A`, `[rank, referenceHiddenSize]`, row-major. */
  readonly a: Float64Array;
  /** `lora_B`, `[V, rank]`, row-major. */
  readonly b: Float64Array;
}

/** Why an adapter that claims the reference format cannot be read. */
export class ReferenceLoraError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReferenceLoraError';
  }
}

/** `u = A · h`: the LoRA's inner activation (a vector of `rank`), with `h` all ones. */
export function loraInner(weights: ReferenceLoraWeights): Float64Array {
  const u = new Float64Array(weights.rank);
  for (let k = 0; k < weights.rank; k += 1) {
    let sum = 0;
    for (let j = 0; j < referenceHiddenSize; j += 1) sum += weights.a[k * referenceHiddenSize + j]!;
    u[k] = sum;
  }
  return u;
}

/** The per-word logit bias the add-on adds: `(alpha / r) · B · A · h`, one entry per vocabulary word. */
export function wordLogitBias(weights: ReferenceLoraWeights): Float64Array {
  const u = loraInner(weights);
  const scale = weights.alpha / weights.rank;
  const bias = new Float64Array(referenceVocabulary.length);
  for (let v = 0; v < bias.length; v += 1) {
    let sum = 0;
    for (let k = 0; k < weights.rank; k += 1) sum += weights.b[v * weights.rank + k]! * u[k]!;
    bias[v] = scale * sum;
  }
  return bias;
}

/**
 * The engine's word distribution under a logit bias: `softmax(bias / temperature)` (the base logits are 0).
 * A temperature of 0 (or below) is greedy: all mass on the first word of highest bias.
 */
export function wordProbabilities(bias: ArrayLike<number>, temperature = 1): Float64Array {
  const p = new Float64Array(bias.length);
  if (!(temperature > 0)) {
    let best = 0;
    for (let v = 1; v < bias.length; v += 1) if (bias[v]! > bias[best]!) best = v;
    p[best] = 1;
    return p;
  }
  let max = Number.NEGATIVE_INFINITY;
  for (let v = 0; v < bias.length; v += 1) max = Math.max(max, bias[v]! / temperature);
  let total = 0;
  for (let v = 0; v < bias.length; v += 1) {
    p[v] = Math.exp(bias[v]! / temperature - max);
    total += p[v]!;
  }
  for (let v = 0; v < p.length; v += 1) p[v] = p[v]! / total;
  return p;
}

/** Samples a word index from probabilities with one uniform draw (inverse of the cumulative distribution). */
export function sampleIndex(probabilities: ArrayLike<number>, random: () => number): number {
  const r = random();
  let cumulative = 0;
  for (let v = 0; v < probabilities.length; v += 1) {
    cumulative += probabilities[v]!;
    if (r < cumulative) return v;
  }
  // Rounding left the cumulative sum just under 1: the last word with any mass.
  for (let v = probabilities.length - 1; v > 0; v -= 1) if (probabilities[v]! > 0) return v;
  return 0;
}

/** The vocabulary's indexes of the words of a text (case-insensitive; words outside the vocabulary are skipped). */
export function vocabularyIndexes(text: string): number[] {
  const out: number[] = [];
  for (const match of text.matchAll(/\p{L}+/gu)) {
    const index = wordIndex.get(match[0].toLowerCase());
    if (index !== undefined) out.push(index);
  }
  return out;
}

const wordIndex = new Map(referenceVocabulary.map((word, index) => [word, index]));

/** The PEFT adapter_config.json of a reference add-on. */
export function referenceAdapterConfig(weights: Pick<ReferenceLoraWeights, 'rank' | 'alpha'>, baseModel: string): Record<string, unknown> {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    r: weights.rank,
    lora_alpha: weights.alpha,
    lora_dropout: 0,
    bias: 'none',
    target_modules: [referenceLoraModule],
    base_model_name_or_path: baseModel,
    berth_reference_engine: referenceLoraFormat,
  };
}

/** The add-on's two files, as bytes. */
export function encodeReferenceLora(weights: ReferenceLoraWeights, baseModel: string): Record<string, Uint8Array> {
  const vocabularySize = referenceVocabulary.length;
  if (weights.a.length !== weights.rank * referenceHiddenSize || weights.b.length !== vocabularySize * weights.rank) {
    throw new ReferenceLoraError(`lora_A must hold ${weights.rank}×${referenceHiddenSize} and lora_B ${vocabularySize}×${weights.rank} values`);
  }
  const tensors: [string, readonly number[], Float64Array][] = [
    [referenceLoraTensorA, [weights.rank, referenceHiddenSize], weights.a],
    [referenceLoraTensorB, [vocabularySize, weights.rank], weights.b],
  ];
  const header: Record<string, unknown> = { __metadata__: { format: 'pt', [referenceLoraMetadataKey]: referenceLoraFormat } };
  let offset = 0;
  for (const [name, shape, values] of tensors) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + values.length * 4] };
    offset += values.length * 4;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerBytes = Math.ceil(json.byteLength / 8) * 8;
  const out = new Uint8Array(8 + headerBytes + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(headerBytes), true);
  out.fill(0x20, 8, 8 + headerBytes);
  out.set(json, 8);
  let at = 8 + headerBytes;
  for (const [, , values] of tensors) {
    for (const value of values) {
      view.setFloat32(at, value, true);
      at += 4;
    }
  }
  const config = new TextEncoder().encode(`${JSON.stringify(referenceAdapterConfig(weights, baseModel), null, 2)}\n`);
  return { [referenceAdapterConfigFile]: config, [referenceAdapterWeightsFile]: out };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a reference add-on from its files' bytes. Answers undefined when the weights do not carry the
 * format's metadata marker (another adapter: the engine keeps only its digest); throws
 * {@link ReferenceLoraError} when they carry it but the files do not hold what the format says.
 */
export function decodeReferenceLora(weightsFile: Uint8Array, configFile?: Uint8Array): ReferenceLoraWeights | undefined {
  if (weightsFile.byteLength < 8) return undefined;
  const view = new DataView(weightsFile.buffer, weightsFile.byteOffset, weightsFile.byteLength);
  const headerLength = view.getBigUint64(0, true);
  if (headerLength < 2n || headerLength > BigInt(weightsFile.byteLength - 8)) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(weightsFile.subarray(8, 8 + Number(headerLength))).trimEnd());
  } catch {
    return undefined;
  }
  if (!isRecord(header) || !isRecord(header.__metadata__) || header.__metadata__[referenceLoraMetadataKey] === undefined) return undefined;
  const marker = header.__metadata__[referenceLoraMetadataKey];
  if (marker !== referenceLoraFormat) throw new ReferenceLoraError(`${referenceAdapterWeightsFile} is of reference format ${JSON.stringify(marker)}; this engine reads ${referenceLoraFormat}`);
  const dataStart = 8 + Number(headerLength);
  const tensor = (name: string, rows: number | undefined, columns: number | undefined): { values: Float64Array; shape: [number, number] } => {
    const entry = header[name];
    if (!isRecord(entry)) throw new ReferenceLoraError(`${referenceAdapterWeightsFile} has no tensor ${name}`);
    const { dtype, shape, data_offsets: offsets } = entry;
    if (dtype !== 'F32') throw new ReferenceLoraError(`tensor ${name} must be F32, not ${JSON.stringify(dtype)}`);
    if (!Array.isArray(shape) || shape.length !== 2 || !shape.every((n) => Number.isInteger(n) && (n as number) > 0)) {
      throw new ReferenceLoraError(`tensor ${name} must be a matrix`);
    }
    const [r, c] = shape as [number, number];
    if ((rows !== undefined && r !== rows) || (columns !== undefined && c !== columns)) {
      throw new ReferenceLoraError(`tensor ${name} has shape [${r}, ${c}]; expected [${rows ?? 'r'}, ${columns ?? 'r'}]`);
    }
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((n) => Number.isInteger(n))) {
      throw new ReferenceLoraError(`tensor ${name} has no data_offsets`);
    }
    const [begin, end] = offsets as [number, number];
    if (end - begin !== r * c * 4 || dataStart + end > weightsFile.byteLength || begin < 0) {
      throw new ReferenceLoraError(`tensor ${name}'s data_offsets do not fit its shape or the file`);
    }
    const values = new Float64Array(r * c);
    for (let i = 0; i < values.length; i += 1) {
      const value = view.getFloat32(dataStart + begin + i * 4, true);
      if (!Number.isFinite(value)) throw new ReferenceLoraError(`tensor ${name} holds a value that is not finite`);
      values[i] = value;
    }
    return { values, shape: [r, c] };
  };
  const a = tensor(referenceLoraTensorA, undefined, referenceHiddenSize);
  const rank = a.shape[0];
  const b = tensor(referenceLoraTensorB, referenceVocabulary.length, rank);
  let alpha = rank;
  if (configFile) {
    let config: unknown;
    try {
      config = JSON.parse(new TextDecoder().decode(configFile));
    } catch {
      throw new ReferenceLoraError(`${referenceAdapterConfigFile} is not JSON`);
    }
    if (!isRecord(config)) throw new ReferenceLoraError(`${referenceAdapterConfigFile} is not a JSON object`);
    if (config.r !== undefined && config.r !== rank) throw new ReferenceLoraError(`${referenceAdapterConfigFile} has r ${JSON.stringify(config.r)} but lora_A has rank ${rank}`);
    if (config.lora_alpha !== undefined) {
      if (typeof config.lora_alpha !== 'number' || !Number.isFinite(config.lora_alpha) || config.lora_alpha <= 0) {
        throw new ReferenceLoraError(`${referenceAdapterConfigFile} has a lora_alpha that is not a positive number`);
      }
      alpha = config.lora_alpha;
    }
  }
  return { rank, alpha, a: a.values, b: b.values };
}
