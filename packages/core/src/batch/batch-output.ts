import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import type { Storage } from '../ports/storage.js';
import { parseResourceName } from '../names/resource-name.js';
import type { Dataset } from '../resources/datasets/dataset-schema.js';
import { chunkAttempts, chunkBlobKey, chunkPrefix, type BatchRunRecord } from '../resources/batch-inference-jobs/batch-inference-job-runs.js';

/** Largest output file written: a job's results are split into files of at most this many bytes. */
export const defaultOutputPartBytes = 8 * 1024 * 1024;

/** The blob key of a file of a dataset (the dataset file service's layout). */
export function datasetBlobKey(dataset: string, filename: string): string {
  return `datasets/${dataset.slice('accounts/'.length)}/${filename}`;
}

/**
 * Creates the job's output dataset (UPLOADING, `sourceJobName` = the job) when absent. An existing one
 * is used when it is still UPLOADING with no files, or was created by this job; otherwise the answer is
 * the reason the job cannot write there.
 */
export async function prepareOutputDataset(ctx: RequestContext, storage: Storage, dataset: string, jobName: string, now: string): Promise<string | undefined> {
  const found = await storage.resources.get(ctx, dataset);
  if (!found) {
    const { id } = parseResourceName(dataset, 'datasets');
    const record: Dataset = {
      name: dataset, displayName: id, createTime: now, updateTime: now, state: 'UPLOADING', format: 'FORMAT_UNSPECIFIED', sourceJobName: jobName,
      exampleCount: '0',
    };
    try {
      await storage.resources.create(ctx, dataset, record as JsonObject);
    } catch (error) {
      // Created by another attempt of this job in between: checked below like any existing dataset.
      if (!(await storage.resources.get(ctx, dataset))) throw error;
      return prepareOutputDataset(ctx, storage, dataset, jobName, now);
    }
    return undefined;
  }
  const existing = found.data as Dataset;
  if (existing.sourceJobName === jobName) return undefined;
  if (existing.state !== 'UPLOADING') return `output dataset ${dataset} already exists and is ${existing.state ?? 'STATE_UNSPECIFIED'}; name a new or an empty UPLOADING dataset`;
  const files = await storage.blobs.list(ctx, datasetBlobKey(dataset, ''));
  if (files.length > 0) return `output dataset ${dataset} already holds files; name a new or an empty dataset`;
  await storage.transaction(ctx, async (tx) => {
    const current = await tx.resources.getForUpdate(ctx, dataset);
    if (!current) return;
    await tx.resources.update(ctx, dataset, { ...current.data, sourceJobName: jobName, updateTime: now }, current.etag);
  });
  return undefined;
}

/**
 * Writes concatenated chunk files as output files of at most `partBytes` each (a chunk file larger than
 * that makes a part of its own): `results.jsonl`, or `results-1.jsonl`, `results-2.jsonl`, …. The parts
 * are planned from the chunk files' sizes, then each is streamed to the store chunk file by chunk file,
 * so the gateway holds one chunk file's bytes at a time, not a part. Answers the lines written.
 */
async function writeParts(
  ctx: RequestContext, storage: Storage, jobName: string, run: BatchRunRecord, dataset: string, kind: 'results' | 'errors', partBytes: number,
): Promise<number> {
  const parts: string[][] = [[]];
  let size = 0;
  for (const [chunk, attempt] of chunkAttempts(run)) {
    const key = chunkBlobKey(jobName, chunk, attempt, kind);
    const found = await storage.blobs.head(ctx, key);
    if (!found) throw new Error(`chunk ${chunk} of ${jobName} lost its ${kind} file`);
    if (size > 0 && size + found.size > partBytes) {
      parts.push([]);
      size = 0;
    }
    parts[parts.length - 1]!.push(key);
    size += found.size;
  }
  let lines = 0;
  async function* bytesOf(keys: readonly string[]): AsyncGenerator<Uint8Array> {
    for (const key of keys) {
      const read = await storage.blobs.getStream(ctx, key);
      if (!read) throw new Error(`${key} of ${jobName} is gone`);
      for await (const bytes of read.body) {
        for (const byte of bytes) if (byte === 0x0a) lines += 1;
        yield bytes;
      }
    }
  }
  if (parts.length === 1) {
    await storage.blobs.putStream(ctx, datasetBlobKey(dataset, `${kind}.jsonl`), bytesOf(parts[0]!), 'application/jsonl');
    return lines;
  }
  await storage.blobs.delete(ctx, datasetBlobKey(dataset, `${kind}.jsonl`));
  for (const [index, keys] of parts.entries()) {
    await storage.blobs.putStream(ctx, datasetBlobKey(dataset, `${kind}-${index + 1}.jsonl`), bytesOf(keys), 'application/jsonl');
  }
  return lines;
}

/**
 * Writes the committed chunks' results and errors into the output dataset and marks it READY with
 * `exampleCount` = result lines. Idempotent: a dataset this job already marked READY is left as it is.
 */
export async function writeOutput(
  ctx: RequestContext, storage: Storage, jobName: string, run: BatchRunRecord, dataset: string, now: string, partBytes = defaultOutputPartBytes,
): Promise<void> {
  const current = (await storage.resources.get(ctx, dataset))?.data as Dataset | undefined;
  if (!current) throw new Error(`output dataset ${dataset} is gone`);
  if (current.state === 'READY' && current.sourceJobName === jobName) return;
  const examples = await writeParts(ctx, storage, jobName, run, dataset, 'results', partBytes);
  await writeParts(ctx, storage, jobName, run, dataset, 'errors', partBytes);
  await storage.transaction(ctx, async (tx) => {
    const stored = await tx.resources.getForUpdate(ctx, dataset);
    if (!stored) throw new Error(`output dataset ${dataset} is gone`);
    const data = { ...stored.data, state: 'READY', exampleCount: String(examples), sourceJobName: jobName, updateTime: now } as JsonObject;
    delete data.status;
    await tx.resources.update(ctx, dataset, data, stored.etag);
  });
}

/** Removes the job's chunk files (after its output is written, or once the job is gone). */
export async function removeChunkFiles(ctx: RequestContext, storage: Storage, jobName: string): Promise<void> {
  for (const key of await storage.blobs.list(ctx, chunkPrefix(jobName))) await storage.blobs.delete(ctx, key);
}
