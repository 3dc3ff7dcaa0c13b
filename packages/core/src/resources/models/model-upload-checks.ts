import type { Precision } from '../../contracts/precision.js';
import { quotedFileName } from './model-files.js';
import type { Model } from './model-schema.js';
import type { SafetensorsSummary } from './safetensors-header.js';

/** A file of an upload that a serving engine could not use; the message says which file and why. */
export class ModelFileProblem extends Error {
  constructor(
    readonly fileName: string,
    readonly problem: string,
    /** `missing` for an announced or required file that is not stored (FAILED_PRECONDITION), else `invalid`. */
    readonly kind: 'missing' | 'invalid' = 'invalid',
  ) {
    super(`file ${quotedFileName(fileName)}: ${problem}`);
    this.name = 'ModelFileProblem';
  }
}

/** Read access to the stored files of the model being validated. */
export interface UploadedModelFiles {
  /** Every stored file with its size. */
  readonly sizes: ReadonlyMap<string, number>;
  /** A stored JSON file, parsed; a {@link ModelFileProblem} when it is not JSON or too large. */
  readJson(fileName: string): Promise<unknown>;
  /** A stored safetensors file's checked header; a {@link ModelFileProblem} when it is not valid. */
  readSafetensors(fileName: string): Promise<SafetensorsSummary>;
}

/** What `:validateUpload` skips, as the reference's query parameters ask. */
export interface ModelUploadCheckOptions {
  /** `skipHfConfigValidation`: config.json is neither required nor checked. */
  readonly skipConfig?: boolean;
  /** `configOnly`: tensor names are not checked against the config (headers are still parsed and checked). */
  readonly configOnly?: boolean;
}

/** What validation learned, written onto the model when it becomes READY. */
export interface ModelUploadFacts {
  readonly parameterCount?: bigint;
  readonly precision?: Precision;
  readonly modelType?: string;
}

/** The base model of an add-on, as far as validation needs it. */
export interface AddonBase {
  readonly name: string;
  readonly model: Model;
  /** The base's own stored safetensors headers, by file (empty when the base has no uploaded files). */
  readonly headers: readonly SafetensorsSummary[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The precision a checkpoint's floating-point weights are stored at: the dtype holding most elements. */
export function precisionOfHeaders(headers: readonly SafetensorsSummary[]): Precision | undefined {
  const byDtype = new Map<string, bigint>();
  for (const header of headers) {
    for (const [dtype, elements] of Object.entries(header.elementsByDtype)) byDtype.set(dtype, (byDtype.get(dtype) ?? 0n) + elements);
  }
  const floats: [string, Precision][] = [['BF16', 'BF16'], ['F16', 'FP16'], ['F8_E4M3', 'FP8'], ['F8_E5M2', 'FP8']];
  let best: Precision | undefined;
  let most = 0n;
  for (const [dtype, precision] of floats) {
    const elements = byDtype.get(dtype) ?? 0n;
    if (elements > most) {
      most = elements;
      best = precision;
    }
  }
  return best;
}

const safetensorsFiles = (files: UploadedModelFiles) => [...files.sizes.keys()].filter((name) => name.endsWith('.safetensors'));

async function readHeaders(files: UploadedModelFiles, names: readonly string[]): Promise<Map<string, SafetensorsSummary>> {
  const headers = new Map<string, SafetensorsSummary>();
  for (const name of names) headers.set(name, await files.readSafetensors(name));
  return headers;
}

/** Every file listed in `names` is stored, else a `missing` problem naming the first absent one. */
function requireStored(files: UploadedModelFiles, names: readonly string[], why: string): void {
  for (const name of names) {
    if (!files.sizes.has(name)) throw new ModelFileProblem(name, `${why} but it has not been uploaded`, 'missing');
  }
}

/** config.json of a checkpoint: a JSON object with a non-empty `model_type` equal to the model's modelType when given. */
async function checkConfig(files: UploadedModelFiles, model: Model): Promise<string> {
  requireStored(files, ['config.json'], 'a HUB checkpoint needs its config.json');
  const config = await files.readJson('config.json');
  if (!isRecord(config)) throw new ModelFileProblem('config.json', 'is not a JSON object');
  const modelType = config.model_type;
  if (typeof modelType !== 'string' || modelType.trim() === '') throw new ModelFileProblem('config.json', 'has no "model_type" string');
  const declared = model.baseModelDetails?.modelType;
  if (declared !== undefined && declared !== '' && declared !== modelType) {
    throw new ModelFileProblem('config.json', `has model_type "${modelType}" but baseModelDetails.modelType is "${declared}"`);
  }
  const architectures = config.architectures;
  if (architectures !== undefined && (!Array.isArray(architectures) || !architectures.every((a) => typeof a === 'string'))) {
    throw new ModelFileProblem('config.json', '"architectures" must be a list of strings');
  }
  return modelType;
}

/**
 * A sharded checkpoint's index (`*.safetensors.index.json`): its `weight_map` names tensors and the
 * files holding them; every file it names must be stored and hold that tensor.
 */
async function checkIndex(files: UploadedModelFiles, indexName: string, headers: ReadonlyMap<string, SafetensorsSummary>, checkNames: boolean): Promise<void> {
  const index = await files.readJson(indexName);
  const weightMap = isRecord(index) ? index.weight_map : undefined;
  if (!isRecord(weightMap)) throw new ModelFileProblem(indexName, 'has no "weight_map" object');
  const namesByFile = new Map<string, Set<string>>();
  for (const [tensor, file] of Object.entries(weightMap)) {
    if (typeof file !== 'string') throw new ModelFileProblem(indexName, `maps tensor "${tensor.slice(0, 80)}" to something that is not a file name`);
    const header = headers.get(file);
    if (!header) throw new ModelFileProblem(file, `is named by ${indexName} but it has not been uploaded`, 'missing');
    if (!checkNames) continue;
    const names = namesByFile.get(file) ?? new Set(header.tensors.map((t) => t.name));
    namesByFile.set(file, names);
    if (!names.has(tensor)) throw new ModelFileProblem(file, `holds no tensor "${tensor.slice(0, 80)}" although ${indexName} maps it there`);
  }
}

/**
 * Checks the files of a HUB_BASE_MODEL checkpoint: every `hubFiles` entry stored, config.json (unless
 * skipped), at least one safetensors file, every safetensors header valid, every index consistent with
 * the headers. Answers the parameter count, precision and model type the files show.
 */
export async function checkBaseCheckpoint(files: UploadedModelFiles, model: Model, options: ModelUploadCheckOptions = {}): Promise<ModelUploadFacts> {
  requireStored(files, model.baseModelDetails?.hubFiles ?? [], 'is listed in baseModelDetails.hubFiles');
  const modelType = options.skipConfig ? undefined : await checkConfig(files, model);
  const weights = safetensorsFiles(files);
  if (weights.length === 0) throw new ModelFileProblem('model.safetensors', 'a HUB checkpoint needs its weights as .safetensors files and none has been uploaded', 'missing');
  const headers = await readHeaders(files, weights);
  for (const name of files.sizes.keys()) {
    if (name.endsWith('.safetensors.index.json')) await checkIndex(files, name, headers, options.configOnly !== true);
  }
  const summaries = [...headers.values()];
  const parameterCount = summaries.reduce((sum, h) => sum + h.parameterCount, 0n);
  const precision = precisionOfHeaders(summaries);
  return { parameterCount, ...(precision ? { precision } : {}), ...(modelType ? { modelType } : {}) };
}

/** A LoRA tensor name: `<module path>.lora_A[.<adapter>].weight` or `lora_B`. */
const loraTensorPattern = /^(.*)\.lora_([AB])(?:\.[^.]+)?\.weight$/;

interface LoraPair {
  a?: readonly number[];
  b?: readonly number[];
}

/** The base-model weight a LoRA module applies to: the PEFT wrapper prefix stripped, `.weight` added. */
function baseWeightName(modulePath: string): string {
  return `${modulePath.replace(/^base_model\.model\./, '')}.weight`;
}

/** The adapter_config.json of a PEFT add-on, checked against the model's peftDetails. */
async function checkAdapterConfig(files: UploadedModelFiles, model: Model): Promise<void> {
  requireStored(files, ['adapter_config.json'], 'a PEFT add-on needs its adapter_config.json');
  const config = await files.readJson('adapter_config.json');
  if (!isRecord(config)) throw new ModelFileProblem('adapter_config.json', 'is not a JSON object');
  const peft = model.peftDetails!;
  const peftType = config.peft_type;
  if (peftType !== undefined && peftType !== 'LORA') throw new ModelFileProblem('adapter_config.json', `has peft_type ${JSON.stringify(peftType)}; only LORA adapters are served`);
  if (config.r !== peft.r) throw new ModelFileProblem('adapter_config.json', `has r ${JSON.stringify(config.r)} but peftDetails.r is ${peft.r}`);
  const targets = config.target_modules;
  if (!Array.isArray(targets) || !targets.every((t) => typeof t === 'string')) {
    throw new ModelFileProblem('adapter_config.json', '"target_modules" must be a list of module names');
  }
  const given = [...new Set(targets as string[])].sort();
  const expected = [...new Set(peft.targetModules)].sort();
  if (given.join(',') !== expected.join(',')) {
    throw new ModelFileProblem('adapter_config.json', `has target_modules [${given.join(', ')}] but peftDetails.targetModules is [${expected.join(', ')}]`);
  }
}

/**
 * Checks the files of a PEFT (LoRA) add-on: adapter_config.json (LORA, `r` equal to `peftDetails.r`,
 * `target_modules` equal to `peftDetails.targetModules` as sets), adapter weights as safetensors whose
 * LoRA tensors come in A/B pairs of rank r on the target modules only, and compatibility with the base
 * model: the base must be a base model (HUB_BASE_MODEL) and, when it holds uploaded weights, every
 * adapted module must exist in it with the shape the A/B pair implies (`[rows of B, columns of A]`).
 * Answers the base's model type.
 */
export async function checkPeftAddon(files: UploadedModelFiles, model: Model, base: AddonBase, options: ModelUploadCheckOptions = {}): Promise<ModelUploadFacts> {
  await checkAdapterConfig(files, model);
  const peft = model.peftDetails!;
  if (base.model.kind !== 'HUB_BASE_MODEL') {
    throw new ModelFileProblem('adapter_config.json', `adapts ${base.name}, which is a ${base.model.kind ?? 'KIND_UNSPECIFIED'} model, not a HUB_BASE_MODEL`);
  }
  const weights = safetensorsFiles(files);
  if (weights.length === 0) throw new ModelFileProblem('adapter_model.safetensors', 'a PEFT add-on needs its weights as .safetensors files and none has been uploaded', 'missing');
  const headers = await readHeaders(files, weights);
  if (options.configOnly) return baseTypeFacts(base);
  const baseShapes = new Map<string, readonly number[]>();
  for (const header of base.headers) for (const tensor of header.tensors) baseShapes.set(tensor.name, tensor.shape);
  for (const [file, header] of headers) {
    const pairs = new Map<string, LoraPair>();
    for (const tensor of header.tensors) {
      const match = loraTensorPattern.exec(tensor.name);
      if (!match) continue;
      const [, modulePath, side] = match as unknown as [string, string, 'A' | 'B'];
      const pair = pairs.get(modulePath) ?? {};
      if (tensor.shape.length !== 2) throw new ModelFileProblem(file, `tensor "${tensor.name.slice(0, 80)}" is not a matrix`);
      if (side === 'A') pair.a = tensor.shape;
      else pair.b = tensor.shape;
      pairs.set(modulePath, pair);
    }
    if (pairs.size === 0) throw new ModelFileProblem(file, 'holds no LoRA tensors (names ending in .lora_A.weight / .lora_B.weight)');
    for (const [modulePath, pair] of pairs) {
      const module = modulePath.slice(modulePath.lastIndexOf('.') + 1);
      if (!peft.targetModules.includes(module)) throw new ModelFileProblem(file, `adapts module "${modulePath.slice(0, 120)}", which is not in peftDetails.targetModules`);
      if (!pair.a || !pair.b) throw new ModelFileProblem(file, `module "${modulePath.slice(0, 120)}" has lora_${pair.a ? 'A' : 'B'} without lora_${pair.a ? 'B' : 'A'}`);
      if (pair.a[0] !== peft.r || pair.b[1] !== peft.r) {
        throw new ModelFileProblem(file, `module "${modulePath.slice(0, 120)}" has rank ${pair.a[0]}×${pair.b[1]} (lora_A rows × lora_B columns) but peftDetails.r is ${peft.r}`);
      }
      if (baseShapes.size === 0) continue;
      const weight = baseWeightName(modulePath);
      const shape = baseShapes.get(weight);
      if (!shape) throw new ModelFileProblem(file, `adapts "${weight.slice(0, 120)}", which ${base.name} does not have`);
      if (shape.length !== 2 || shape[0] !== pair.b[0] || shape[1] !== pair.a[1]) {
        throw new ModelFileProblem(file, `module "${modulePath.slice(0, 120)}" implies a [${pair.b[0]}, ${pair.a[1]}] weight but ${base.name} has [${shape.join(', ')}]`);
      }
    }
  }
  return baseTypeFacts(base);
}

function baseTypeFacts(base: AddonBase): ModelUploadFacts {
  const modelType = base.model.baseModelDetails?.modelType;
  return modelType ? { modelType } : {};
}
