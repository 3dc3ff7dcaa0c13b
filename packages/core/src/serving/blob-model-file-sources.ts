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
        const head = await blobs.head(ctx, modelFileKey(modelName, path));
        if (head) files.push({ path, sizeBytes: head.size, sha256: head.sha256 });
      }
      return {
        model: modelName,
        files,
        async read(readCtx, path) {
          const stream = await blobs.getStream(readCtx, modelFileKey(modelName, path));
          if (!stream) throw notFound(`file ${path} of ${modelName}`);
          return stream.body;
        },
        signedUrl: (path, ttlSeconds) => sign(modelName, path, ttlSeconds),
      };
    },
  };
}
