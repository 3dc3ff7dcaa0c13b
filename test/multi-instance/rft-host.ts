/**
 * A gateway process for the fine-tuning kill test: the PostgreSQL template (storage, API keys, queue
 * workers) with its fine-tuning runner on a short lease, the serving directory of `engine-directory.ts`
 * (one reference engine, ENGINE_URL), and the reference trainer wrapped to leave a record of every step
 * it answers (`rft-kill-log/<job id>/<step>/<from step>/<sha256 of the checkpoint's files>/<random>`), so the
 * test can check that each step produced one checkpoint, from the one before, however often it was asked.
 * Prints `{"url", "pid"}` once listening.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  RftJobRunner, ServiceRftModels, createReferenceTrainer, definePlugin, deployedModelServiceToken, modelFileServiceToken, modelServiceToken,
  rftJobRunnerToken, servingDirectoryToken, storageToken, trainerToken, type Trainer,
} from '@berth/core';
import { runPostgresGateway } from '@berth/template-gateway-postgres';
import { engineDirectory } from './engine-directory.js';

const engineUrl = process.env.ENGINE_URL ?? '';
const account = process.env.BERTH_ACCOUNT_ID ?? '';
if (engineUrl === '' || account === '') throw new Error('rft-host needs ENGINE_URL and BERTH_ACCOUNT_ID');

const host = definePlugin({
  id: 'rft-kill-host',
  register(binder) {
    binder.bindValue(servingDirectoryToken, engineDirectory(engineUrl, account), { override: true });
    binder.bind({
      token: trainerToken,
      deps: [storageToken],
      override: true,
      factory: (storage): Trainer => {
        const reference = createReferenceTrainer(storage.blobs);
        return {
          name: reference.name,
          async step(ctx, input) {
            const result = await reference.step(ctx, input);
            const files = createHash('sha256').update(result.checkpoint.files.map((f) => `${f.path}:${f.sha256}`).join('\n')).digest('hex');
            const id = input.job.split('/').pop() ?? '';
            await storage.blobs.put(ctx, `rft-kill-log/${id}/${input.step}/${input.from?.step ?? 0}/${files}/${randomUUID()}`, new Uint8Array(), 'text/plain');
            return result;
          },
          discard: (ctx, job, keep) => reference.discard(ctx, job, keep),
        };
      },
    });
    binder.bind({
      token: rftJobRunnerToken,
      deps: [storageToken, modelServiceToken, modelFileServiceToken, deployedModelServiceToken],
      override: true,
      factory: (storage, models, modelFiles, deployedModels) => new RftJobRunner(
        { pollMs: 100, leaseMs: Number(process.env.RFT_LEASE_MS ?? 2000), backoff: { initialMs: 100, maxMs: 500 } },
        new ServiceRftModels(storage, models, modelFiles, deployedModels),
      ),
    });
  },
});

const server = await runPostgresGateway([host]);
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
