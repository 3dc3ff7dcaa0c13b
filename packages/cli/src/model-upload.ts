/**
 * `berth models upload`: a model's files through the gateway's signed-URL flow — `:getUploadEndpoint`
 * with every file's size, one streamed PUT per file with one byte bar over all of them, then
 * `:validateUpload`, which checks the files and makes the model READY (or leaves a status naming the file).
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { GatewayClient } from './client.js';
import { CliError } from './errors.js';
import type { OutputStream } from './io.js';
import { Progress, formatBytes } from './progress.js';
import { fileChunks } from './upload.js';
import type { JsonObject } from './values.js';

export interface ModelFile {
  /** The name the gateway stores (a relative path with `/` for files inside a given folder). */
  name: string;
  path: string;
  size: number;
}

async function walk(root: string, folder: string, found: ModelFile[]): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) await walk(root, path, found);
    else if (entry.isFile()) found.push({ name: relative(root, path).split(sep).join('/'), path, size: (await stat(path)).size });
  }
}

/** Files given directly keep their base name; a folder contributes every file under it, named relative to it. */
export async function collectModelFiles(paths: readonly string[]): Promise<ModelFile[]> {
  const found: ModelFile[] = [];
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
    }
    if (info.isDirectory()) await walk(path, path, found);
    else found.push({ name: basename(path), path, size: info.size });
  }
  const names = new Set<string>();
  for (const file of found) {
    if (names.has(file.name)) throw new CliError(`two files would be stored as "${file.name}"`);
    names.add(file.name);
  }
  if (found.length === 0) throw new CliError('no files to upload');
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

export interface ModelUploadOptions {
  client: GatewayClient;
  modelId: string;
  files: readonly ModelFile[];
  progressStream: OutputStream;
  validateQuery: Record<string, boolean | undefined>;
}

export async function uploadModelFiles(options: ModelUploadOptions): Promise<JsonObject> {
  const { client, files } = options;
  const path = client.accountPath(`/models/${encodeURIComponent(options.modelId)}`);
  const endpoint = await client.request<{ filenameToSignedUrls?: Record<string, string> }>('POST', `${path}:getUploadEndpoint`, {
    body: { filenameToSize: Object.fromEntries(files.map((f) => [f.name, String(f.size)])) },
  });
  const urls = endpoint.filenameToSignedUrls ?? {};
  const total = files.reduce((n, f) => n + f.size, 0);
  const progress = new Progress(options.progressStream, { label: `uploading ${options.modelId}`, plainStep: 10 });
  let before = 0;
  try {
    for (const [index, file] of files.entries()) {
      const url = urls[file.name];
      if (url === undefined) throw new CliError(`the gateway gave no upload URL for "${file.name}"`);
      const draw = (sent: number) => progress.update(total === 0 ? 1 : (before + sent) / total, `${formatBytes(before + sent)} / ${formatBytes(total)}  ${file.name} (${index + 1}/${files.length})`);
      draw(0);
      await client.upload(url, fileChunks(file.path, draw), { 'content-type': 'application/octet-stream', 'content-length': String(file.size) }, { method: 'PUT', signedUrl: true });
      before += file.size;
    }
  } finally {
    progress.finish();
  }
  await client.request('GET', `${path}:validateUpload`, { query: options.validateQuery });
  return client.request<JsonObject>('GET', path);
}
