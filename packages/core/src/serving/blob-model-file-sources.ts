import { createHash } from 'node:crypto';
import { notFound } from '../errors/index.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import type { ModelFileEntry, ModelFileSource } from '../ports/model-files.js';
import type { BlobStore } from '../ports/storage.js';
import { listModelFiles, modelFileKey } from '../resources/models/model-files.js';
import type { ModelFileSources } from './model-file-sources.js';

/** Signs a GET URL of one file of a model, valid for `ttlSeconds` (relative to the gateway's origin). */
export type ModelFileUrlSigner = (model: string, fileName: string, ttlSeconds: number) => string;

/**
 * Model files as the upload flow stored them in the blob store (`models/<account>/<modelId>/<fileName>`,
 * see `resources/models/model-files.ts`): a model has files when its prefix holds any, and each is recorded
 * with the size and SHA-256 the store computed while the upload wrote it. Only a READY model's files are
 * served (an upload in progress is not a checkpoint yet).
 */
export function blobModelFileSources(blobs: BlobStore, sign: ModelFileUrlSigner): ModelFileSources {
  return {
    async sourceOf(ctx: RequestContext, modelName: string, model: JsonObject): Promise<ModelFileSource | undefined> {
      if (model.state !== undefined && model.state !== 'READY') return undefined;
      const names = await listModelFiles(ctx, blobs, modelName);
      if (names.length === 0) return undefined;
      const files: ModelFileEntry[] = [];
      for (const path of names) {
        const head = await blobHead(ctx, blobs, modelFileKey(modelName, path));
        if (head) files.push({ path, sizeBytes: head.size, sha256: head.sha256 });
      }
      return {
        model: modelName,
        files,
        async read(readCtx, path) {
          const body = await blobBody(readCtx, blobs, modelFileKey(modelName, path));
          if (!body) throw notFound(`file ${path} of ${modelName}`);
          return body;
        },
        signedUrl: (path, ttlSeconds) => sign(modelName, path, ttlSeconds),
      };
    },
  };
}

/** A stored object's size and SHA-256 (as the store recorded them), undefined when absent. */
async function blobHead(ctx: RequestContext, blobs: BlobStore, key: string): Promise<{ size: number; sha256: string } | undefined> {
  const blob = await blobs.get(ctx, key);
  return blob ? { size: blob.size, sha256: createHash('sha256').update(blob.bytes).digest('hex') } : undefined;
}

/** A stored object's bytes in chunks, undefined when absent. */
async function blobBody(ctx: RequestContext, blobs: BlobStore, key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
  const blob = await blobs.get(ctx, key);
  if (!blob) return undefined;
  const bytes = blob.bytes;
  return (async function* () {
    for (let at = 0; at < bytes.byteLength; at += 1 << 20) yield bytes.subarray(at, at + (1 << 20));
  })();
}
