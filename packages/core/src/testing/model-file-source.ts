import { createHash } from 'node:crypto';
import { notFound } from '../errors/index.js';
import type { ModelFileEntry, ModelFileSource } from '../ports/model-files.js';

/**
 * A {@link ModelFileSource} over files held in memory, for tests of what replicas do with model files.
 * Each file is recorded with its real size and SHA-256 unless `recorded` overrides them (a corrupt store);
 * a path in `missing` is recorded but not stored. `reads` counts the files read.
 */
export function memoryModelFileSource(
  model: string,
  files: Readonly<Record<string, Uint8Array | string>>,
  options: { readonly recorded?: Readonly<Record<string, Partial<Omit<ModelFileEntry, 'path'>>>>; readonly missing?: readonly string[]; readonly chunkBytes?: number } = {},
): ModelFileSource & { reads: number } {
  const bytes = new Map(Object.entries(files).map(([path, content]) => [path, typeof content === 'string' ? new TextEncoder().encode(content) : content]));
  const entries: ModelFileEntry[] = [...bytes].map(([path, content]) => ({
    path,
    sizeBytes: content.byteLength,
    sha256: createHash('sha256').update(content).digest('hex'),
    ...options.recorded?.[path],
  }));
  const chunk = options.chunkBytes ?? 64 * 1024;
  const source = {
    model,
    files: entries,
    reads: 0,
    async read(_ctx: unknown, path: string): Promise<AsyncIterable<Uint8Array>> {
      const content = bytes.get(path);
      if (!content || options.missing?.includes(path)) throw notFound(`${model} file ${path}`);
      source.reads += 1;
      return (async function* () {
        for (let at = 0; at < content.byteLength; at += chunk) yield content.subarray(at, at + chunk);
      })();
    },
    signedUrl(path: string, ttlSeconds: number): string {
      return `/v1/${model}/files/${encodeURIComponent(path)}?method=GET&ttl=${ttlSeconds}&signature=test`;
    },
  };
  return source;
}
