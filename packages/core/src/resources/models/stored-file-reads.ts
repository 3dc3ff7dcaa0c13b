import type { RequestContext } from '../../kernel/request-context.js';
import type { BlobStore } from '../../ports/storage.js';
import { ModelFileProblem } from './model-upload-checks.js';
import { parseSafetensorsHeader, SafetensorsError, safetensorsHeaderLength, type SafetensorsSummary } from './safetensors-header.js';

/** Largest JSON file validation reads whole (config.json, adapter_config.json, shard indexes). */
export const maxCheckedJsonBytes = 16 * 1024 * 1024;

/** Where validation reads stored files from. */
export interface StoredFileReader {
  readonly blobs: BlobStore;
}

/** Reads `length` bytes from `offset` of a stored object into one buffer (callers bound `length`). */
async function readRange(ctx: RequestContext, reader: StoredFileReader, key: string, fileName: string, offset: number, length: number): Promise<Uint8Array> {
  const stream = await reader.blobs.getStream(ctx, key, { offset, length });
  if (!stream) throw new ModelFileProblem(fileName, 'has not been uploaded', 'missing');
  const out = new Uint8Array(stream.length);
  let filled = 0;
  for await (const chunk of stream.body) {
    out.set(chunk.subarray(0, out.byteLength - filled), filled);
    filled += chunk.byteLength;
  }
  if (filled !== length) throw new ModelFileProblem(fileName, `ends after ${offset + filled} bytes, before the ${offset + length} its header needs`);
  return out;
}

/** A stored JSON file, parsed: a problem naming the file when it is larger than the bound or not JSON. */
export async function readStoredJson(ctx: RequestContext, reader: StoredFileReader, key: string, fileName: string): Promise<unknown> {
  const head = await reader.blobs.head(ctx, key);
  if (!head) throw new ModelFileProblem(fileName, 'has not been uploaded', 'missing');
  if (head.size > maxCheckedJsonBytes) throw new ModelFileProblem(fileName, `is ${head.size} bytes; a JSON file validation reads may hold ${maxCheckedJsonBytes}`);
  const bytes = head.size === 0 ? new Uint8Array(0) : await readRange(ctx, reader, key, fileName, 0, head.size);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw new ModelFileProblem(fileName, `is not UTF-8 JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** The checked header of a stored safetensors file: two range reads (length, then header), never the data. */
export async function readSafetensorsHeader(ctx: RequestContext, reader: StoredFileReader, key: string, fileName: string): Promise<SafetensorsSummary> {
  const head = await reader.blobs.head(ctx, key);
  if (!head) throw new ModelFileProblem(fileName, 'has not been uploaded', 'missing');
  try {
    if (head.size < 8) throw new SafetensorsError('the file is shorter than the 8-byte header length');
    const length = safetensorsHeaderLength(await readRange(ctx, reader, key, fileName, 0, 8), head.size);
    return parseSafetensorsHeader(await readRange(ctx, reader, key, fileName, 8, length), head.size);
  } catch (error) {
    if (error instanceof SafetensorsError) throw new ModelFileProblem(fileName, `is not a valid safetensors file: ${error.message}`);
    throw error;
  }
}
