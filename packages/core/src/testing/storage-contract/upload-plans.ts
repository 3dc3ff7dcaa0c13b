import { describe, expect, it } from 'vitest';
import { sliceCopies } from '../../blobs/blob-digest.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { systemClock } from '../../ports/clock.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import { ResourceEnvironment } from '../../resources/common/resource-environment.js';
import { GatewaySecrets } from '../../resources/common/secrets.js';
import type { SignedFileRequest } from '../../resources/common/signed-file-urls.js';
import { DatasetFileService } from '../../resources/datasets/dataset-files.js';
import { DatasetService } from '../../resources/datasets/dataset-service.js';
import { ModelFileService } from '../../resources/models/model-file-service.js';
import { ModelService } from '../../resources/models/model-service.js';
import { ctx as baseCtx, uid, type StorageGetter } from './support.js';

const RACERS = 16;

/** The signed request a transport would make of a URL the file services answer. */
function signedRequest(resource: string, filename: string, url: string): SignedFileRequest {
  const query = new URLSearchParams(url.split('?')[1]);
  return { resource, filename, method: 'PUT', expires: query.get('expires')!, signature: query.get('signature')! };
}

const bytes = new TextEncoder().encode('{}');
const upload = () => ({ declaredLength: bytes.byteLength, chunks: sliceCopies(bytes) });

/**
 * Upload announcements on this storage: concurrent `:getUploadEndpoint` calls announcing different files
 * of one dataset (or model) each keep their files, because the upload plan is merged in the resource's
 * storage transaction under its row lock. A storage whose transactions do not serialize on
 * `getForUpdate` loses announcements here (a lost file's PUT is refused as not announced).
 */
export function uploadPlanTests(storage: StorageGetter): void {
  describe('upload announcements (no announcement lost under concurrency)', () => {
    const setup = async (): Promise<{ env: ResourceEnvironment; secrets: GatewaySecrets; ctx: RequestContext; accountId: string }> => {
      const secrets = new GatewaySecrets('contract-secret');
      await secrets.load(baseCtx, storage().kv);
      const accountId = uid('acct');
      const ctx: RequestContext = { requestId: uid('r'), principal: { userName: `accounts/${accountId}/users/admin`, accountId, role: 'admin', email: 'a@example.com' } };
      return { env: new ResourceEnvironment(storage(), systemClock, randomIdGenerator), secrets, ctx, accountId };
    };
    const fileNames = Array.from({ length: RACERS }, (_, i) => `part-${i}.json`);

    /** Announces every file at once (the race), then puts each with its signed URL; answers the puts refused. */
    const announceAllAtOnceThenPut = async (ctx: RequestContext, files: DatasetFileService | ModelFileService, name: string): Promise<string[]> => {
      const answers = await Promise.all(fileNames.map((file) => files.getUploadEndpoint(ctx, name, { filenameToSize: { [file]: String(bytes.byteLength) } })));
      const refused: string[] = [];
      for (const [i, file] of fileNames.entries()) {
        await files.putFile(ctx, signedRequest(name, file, answers[i]!.filenameToSignedUrls[file]!), upload(), 'application/json').catch((error: unknown) => {
          refused.push(`${file}: ${String(error)}`);
        });
      }
      return refused;
    };

    it(`${RACERS} concurrent announcements of different files of one dataset are all kept`, async () => {
      const { env, secrets, ctx, accountId } = await setup();
      const datasets = new DatasetService(env, secrets);
      const files = new DatasetFileService(env, secrets, datasets);
      const name = String((await datasets.create(ctx, accountId, { datasetId: 'raced', dataset: { format: 'CHAT' } })).name);
      expect(await announceAllAtOnceThenPut(ctx, files, name)).toEqual([]);
      // Validation sees every announced file, and the dataset then holds exactly them.
      await files.validateUpload(ctx, name, {});
      const download = await files.getDownloadEndpoint(ctx, name, {});
      expect(Object.keys(download.filenameToSignedUrls).sort()).toEqual([...fileNames].sort());
      await datasets.delete(ctx, name);
    });

    it(`${RACERS} concurrent announcements of different files of one model are all kept`, async () => {
      const { env, secrets, ctx, accountId } = await setup();
      const models = new ModelService(env, secrets);
      const files = new ModelFileService(env, secrets, models);
      const model = { kind: 'HUB_BASE_MODEL', baseModelDetails: { checkpointFormat: 'HUB', hubFiles: ['config.json'] } };
      const name = String((await models.create(ctx, accountId, model, 'raced')).name);
      expect(await announceAllAtOnceThenPut(ctx, files, name)).toEqual([]);
      await models.delete(ctx, name);
    });
  });
}
