import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { finished } from 'node:stream/promises';
import { failedPrecondition, isGatewayError, Code } from '../errors/index.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { ModelFileEntry, ModelFileSource } from '../ports/model-files.js';

/** What a replica read of a model's files. */
export interface FetchedModelFiles {
  readonly files: number;
  readonly bytes: number;
}

/**
 * Reads every file of a model from its source, streamed, and checks each against its recorded size and
 * SHA-256; with `intoDir`, also writes them there (each under a temporary name, renamed once checked), as a
 * replica's download step fills its local model directory.
 * @throws GatewayError FAILED_PRECONDITION naming the model and the file that is missing, has another size
 *   or another SHA-256 (a file written to `intoDir` is removed first).
 */
export async function fetchModelFiles(ctx: RequestContext, source: ModelFileSource, intoDir?: string): Promise<FetchedModelFiles> {
  let bytes = 0;
  for (const entry of source.files) {
    bytes += await fetchOne(ctx, source, entry, intoDir);
  }
  return { files: source.files.length, bytes };
}

async function fetchOne(ctx: RequestContext, source: ModelFileSource, entry: ModelFileEntry, intoDir: string | undefined): Promise<number> {
  const target = intoDir === undefined ? undefined : insideDir(intoDir, entry.path, source.model);
  const part = target === undefined ? undefined : `${target}.part`;
  const fail = (why: string) =>
    failedPrecondition(`model file ${entry.path} of ${source.model} ${why}`, { reason: 'MODEL_FILE_INVALID', field: entry.path });
  let chunks: AsyncIterable<Uint8Array>;
  try {
    chunks = await source.read(ctx, entry.path);
  } catch (error) {
    if (isGatewayError(error) && error.code === Code.NOT_FOUND) throw fail('is missing from the blob store');
    throw error;
  }
  const hash = createHash('sha256');
  let size = 0;
  const out = part === undefined ? undefined : (await mkdir(dirname(part), { recursive: true }), createWriteStream(part));
  try {
    for await (const chunk of chunks) {
      size += chunk.byteLength;
      if (size > entry.sizeBytes) throw fail(`has more than the ${entry.sizeBytes} bytes recorded`);
      hash.update(chunk);
      if (out && !out.write(chunk)) await new Promise<void>((done) => out.once('drain', done));
    }
    if (out) {
      out.end();
      await finished(out);
    }
    if (size !== entry.sizeBytes) throw fail(`has ${size} bytes; ${entry.sizeBytes} were recorded`);
    const sha256 = hash.digest('hex');
    if (sha256 !== entry.sha256) throw fail(`does not match its recorded SHA-256 (${entry.sha256.slice(0, 12)}…, read ${sha256.slice(0, 12)}…)`);
    if (part !== undefined && target !== undefined) await rename(part, target);
    return size;
  } catch (error) {
    out?.destroy();
    if (part !== undefined) await rm(part, { force: true });
    throw error;
  }
}

/** `dir/path`, refusing a recorded path that would leave `dir`. */
function insideDir(dir: string, path: string, model: string): string {
  const root = resolve(dir);
  const target = resolve(join(root, path));
  if (!target.startsWith(root + sep)) {
    throw failedPrecondition(`model file ${path} of ${model} has a path outside the model directory`, { reason: 'MODEL_FILE_INVALID' });
  }
  return target;
}
