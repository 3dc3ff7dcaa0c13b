import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import {
  decodeReferenceLora, ReferenceLoraError, referenceAdapterConfigFile, referenceAdapterWeightsFile, wordLogitBias,
} from './reference-lora.js';

/** A LoRA adapter the reference engine has loaded. */
export interface LoadedAdapter {
  readonly name: string;
  /** What the load call named: a local directory, or a name the engine does not download (a Hub id). */
  readonly path: string;
  /**
   * SHA-256 over the adapter's files (each file's path, then its bytes, in path order), or over `path`
   * when it is not a local directory. Generation under the adapter is seeded with it, so the adapter's
   * weights decide its answers.
   */
  readonly digest: string;
  /**
   * When the adapter is of the reference engine's own trainable format (reference-lora.ts): the per-word
   * logit biases its weights give, which generation under it samples words with. Absent for any other
   * adapter (its digest alone then varies the answers).
   */
  readonly wordLogitBias?: Float64Array;
}

/** Why a load or unload was refused: the HTTP status and message vLLM answers in the same case. */
export class AdapterError extends Error {
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The reference engine's LoRA adapters, loaded and unloaded at run time as vLLM's
 * `/v1/load_lora_adapter` and `/v1/unload_lora_adapter` do: at most `maxLoras` at once (a load beyond
 * that is refused, so a caller that keeps more loaded than it declared is caught), a second load of a
 * name is refused, unloading an unknown name is 404.
 */
export class ReferenceAdapters {
  private readonly adapters = new Map<string, LoadedAdapter>();
  loads = 0;
  unloads = 0;

  constructor(
    private readonly maxLoras: number,
    private readonly baseModelIds: readonly string[],
  ) {}

  get(name: string): LoadedAdapter | undefined {
    return this.adapters.get(name);
  }

  list(): LoadedAdapter[] {
    return [...this.adapters.values()];
  }

  async load(name: string, path: string): Promise<LoadedAdapter> {
    if (this.baseModelIds.includes(name)) throw new AdapterError(400, `The lora adapter '${name}' has the name of a base model.`);
    if (this.adapters.has(name)) throw new AdapterError(400, `The lora adapter '${name}' has already been loaded.`);
    if (this.adapters.size >= this.maxLoras) {
      throw new AdapterError(400, `${this.adapters.size} LoRA adapters are loaded, the most this engine holds (max_loras ${this.maxLoras}); unload one first.`);
    }
    const digest = await adapterDigest(path);
    const bias = await referenceWordBias(path);
    // A concurrent load of the same name may have finished while the files were read.
    if (this.adapters.has(name)) throw new AdapterError(400, `The lora adapter '${name}' has already been loaded.`);
    if (this.adapters.size >= this.maxLoras) throw new AdapterError(400, `max_loras (${this.maxLoras}) adapters are loaded; unload one first.`);
    const adapter = { name, path, digest, ...(bias ? { wordLogitBias: bias } : {}) };
    this.adapters.set(name, adapter);
    this.loads += 1;
    return adapter;
  }

  unload(name: string): void {
    if (!this.adapters.delete(name)) throw new AdapterError(404, `The lora adapter '${name}' cannot be found.`);
    this.unloads += 1;
  }
}

/** See {@link LoadedAdapter.digest}. An absolute path that is not a directory is refused (400). */
export async function adapterDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) {
    if (isAbsolute(path)) throw new AdapterError(400, `No adapter found at ${path}: not a directory.`);
    return hash.update(`name\u0000${path}`).digest('hex');
  }
  const files = await filesUnder(path);
  if (files.length === 0) throw new AdapterError(400, `No adapter found at ${path}: the directory is empty.`);
  for (const file of files) {
    hash.update(`${relative(path, file)}\u0000`);
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

/** Largest reference add-on weights file read (rank 1024 holds under 300 KiB). */
const maxReferenceWeightsBytes = 16 * 1024 * 1024;

/**
 * The word biases of a reference add-on in the directory `path`; undefined when `path` is no directory or its
 * `adapter_model.safetensors` is not of the reference format. A file that claims the format but does not hold
 * it is refused (400).
 */
async function referenceWordBias(path: string): Promise<Float64Array | undefined> {
  const weightsPath = join(path, referenceAdapterWeightsFile);
  const info = await stat(weightsPath).catch(() => undefined);
  if (!info?.isFile() || info.size > maxReferenceWeightsBytes) return undefined;
  const config = await readFile(join(path, referenceAdapterConfigFile)).catch(() => undefined);
  try {
    const weights = decodeReferenceLora(new Uint8Array(await readFile(weightsPath)), config ? new Uint8Array(config) : undefined);
    return weights ? wordLogitBias(weights) : undefined;
  } catch (error) {
    if (error instanceof ReferenceLoraError) throw new AdapterError(400, `The lora adapter at ${path} is not a valid reference add-on: ${error.message}`);
    throw error;
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out.sort();
}
