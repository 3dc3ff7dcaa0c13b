/**
 * A gateway process for the batch kill test: the PostgreSQL template (storage, API keys, queue workers)
 * with its batch runner on a short lease and small chunks, and a serving directory that sends every
 * model of the account to one reference engine (ENGINE_URL, started by the test). Rows still go through
 * the transport's inference proxy, as chat completions do. Prints `{"url", "pid"}` once listening.
 */
import { BatchInferenceRunner, batchInferenceRunnerToken, definePlugin, servingDirectoryToken } from '@berth/core';
import { engineDirectory } from './engine-directory.js';
import { runPostgresGateway } from '@berth/template-gateway-postgres';

const engineUrl = process.env.ENGINE_URL ?? '';
const account = process.env.BERTH_ACCOUNT_ID ?? '';
if (engineUrl === '' || account === '') throw new Error('batch-host needs ENGINE_URL and BERTH_ACCOUNT_ID');

const directory = engineDirectory(engineUrl, account);

const batch = definePlugin({
  id: 'batch-kill-host',
  register(binder) {
    binder.bindValue(servingDirectoryToken, directory, { override: true });
    binder.bindValue(
      batchInferenceRunnerToken,
      new BatchInferenceRunner({
        concurrency: Number(process.env.BATCH_CONCURRENCY ?? 8),
        chunkSize: Number(process.env.BATCH_CHUNK_SIZE ?? 32),
        leaseMs: Number(process.env.BATCH_LEASE_MS ?? 2000),
        cancelPollMs: 200,
        commitIntervalMs: 250,
        backoff: { initialMs: 100, maxMs: 500 },
      }),
      { override: true },
    );
  },
});

const server = await runPostgresGateway([batch]);
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
