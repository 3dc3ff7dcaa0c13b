/**
 * `berth datasets upload`: the file streamed as multipart/form-data (field `file`) to the dataset's
 * `:upload` method, counting bytes as the request body is read, then the dataset's validation result.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CliError } from './errors.js';
import type { GatewayClient } from './client.js';
import { GatewayError } from './errors.js';
import { Progress, formatBytes } from './progress.js';
import type { OutputStream } from './io.js';
import type { JsonObject } from './values.js';

export interface UploadOptions {
  client: GatewayClient;
  file: string;
  datasetId: string;
  /** Fields of the dataset created when it does not exist yet (format, displayName). */
  create: JsonObject;
  progressStream: OutputStream;
}

/** `my_rows.v2.jsonl` → `my-rows-v2`: a dataset id from a file name (lower case, digits, '-'). */
export function datasetIdFromFile(file: string): string {
  const stem = basename(file).replace(/\.[^.]*$/, '');
  const id = stem.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63);
  return /^[a-z]/.test(id) ? id : `dataset-${id}`.replace(/-+$/, '');
}

/** A file's bytes in 256 KiB chunks, telling `onBytes` the running total as each chunk is handed on. */
export async function* fileChunks(file: string, onBytes: (sent: number) => void): AsyncGenerator<Uint8Array> {
  let sent = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
    sent += (chunk as Buffer).length;
    onBytes(sent);
    yield chunk as Buffer;
  }
}

/** Multipart framing around one file part; the body is streamed, never held in memory. */
function multipart(file: string, size: number, onBytes: (sent: number) => void): { body: AsyncIterable<Uint8Array>; headers: Record<string, string> } {
  const boundary = `berth-${randomBytes(12).toString('hex')}`;
  const name = basename(file).replace(/["\r\n]/g, '_');
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/jsonl\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts(): AsyncGenerator<Uint8Array> {
    yield head;
    yield* fileChunks(file, onBytes);
    yield tail;
  }
  return { body: parts(), headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) } };
}

/** Creates the dataset when missing, streams the file with a byte bar, and returns the dataset as validated. */
export async function uploadDataset(options: UploadOptions): Promise<{ dataset: JsonObject; created: boolean; bytes: number }> {
  const { client, file, datasetId } = options;
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a regular file');
    size = info.size;
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const path = client.accountPath(`/datasets/${encodeURIComponent(datasetId)}`);
  let created = false;
  try {
    await client.request('GET', path);
  } catch (error) {
    if (!(error instanceof GatewayError) || error.httpStatus !== 404) throw error;
    await client.request('POST', client.accountPath('/datasets'), { body: { datasetId, dataset: options.create } });
    created = true;
  }
  const progress = new Progress(options.progressStream, { label: `uploading ${basename(file)}`, plainStep: 10 });
  const total = formatBytes(size);
  const draw = (sent: number) => progress.update(size === 0 ? 1 : sent / size, `${formatBytes(sent)} / ${total}`);
  draw(0);
  try {
    const { body, headers } = multipart(file, size, draw);
    await client.upload(`${path}:upload`, body, headers);
    draw(size);
  } finally {
    progress.finish();
  }
  const dataset = await client.request<JsonObject>('GET', path);
  return { dataset, created, bytes: size };
}

/** The validation result in words: state, rows, malformed rows (the first `limit` listed). */
export function validationSummary(dataset: JsonObject, limit = 10): string {
  const lines = [`dataset ${String(dataset.name)}: ${String(dataset.state)}, ${String(dataset.exampleCount ?? 0)} examples`];
  const details = dataset.validationDetails as { malformedRowCount?: string; malformedRows?: Array<{ filename?: string; line?: number; reason?: string }> } | undefined;
  const malformed = Number(details?.malformedRowCount ?? 0);
  if (malformed > 0) {
    lines.push(`${malformed} malformed rows (kept in the file, skipped by jobs):`);
    for (const row of (details?.malformedRows ?? []).slice(0, limit)) lines.push(`  ${row.filename ?? ''} line ${row.line ?? '?'}: ${row.reason ?? ''}`);
    if (malformed > limit) lines.push(`  … see validationDetails with: berth datasets get ${String(dataset.name).split('/').pop()} -o json`);
  }
  return `${lines.join('\n')}\n`;
}
