import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FilesystemBlobStore, sweepOrphanBlobs } from '../../blobs/index.js';
import { systemContext } from '../../kernel/request-context.js';
import { silentLogger } from '../../ports/logger.js';
import type { ClaimedJob, Storage } from '../../ports/storage.js';
import { MemoryStorage } from '../../testing/index.js';
import { ManualClock } from '../../testing/test-gateway.js';
import type { QueueJobContext } from '../../workers/queue-handler.js';
import { blobSweepQueue, fileOwnerRules, fileSweepHandler, fileSweepJob } from './file-sweep.js';

const ctx = systemContext('file-sweep-test');
const hour = 3_600_000;
const encoder = new TextEncoder();

function jobContext(storage: Storage): QueueJobContext {
  return {
    requestId: 'sweep', signal: new AbortController().signal, workerId: 'w', storage, logger: silentLogger,
    resolver: { resolve: () => { throw new Error('unused'); }, resolveAll: () => [], isBound: () => false },
    commit: async () => { throw new Error('unused'); },
  } as unknown as QueueJobContext;
}
const job = { id: 'j', queue: blobSweepQueue, payload: {}, state: 'leased', attempt: 1, maxAttempts: 5, runAt: '', leaseExpiresAt: '', workerId: 'w' } as ClaimedJob;

/** A storage holding the files of a live model, of a deleted model and of a deleted dataset. */
async function seeded(): Promise<MemoryStorage> {
  const storage = new MemoryStorage();
  await storage.resources.create(ctx, 'accounts/acme/models/live', { name: 'accounts/acme/models/live' });
  for (const key of ['models/acme/live/config.json', 'models/acme/gone/config.json', 'models/acme/gone/tokenizer/vocab.json', 'datasets/acme/gone-ds/train.jsonl']) {
    await storage.blobs.put(ctx, key, encoder.encode('{}'), 'application/json');
  }
  return storage;
}

describe('the scheduled sweep of model and dataset files', () => {
  it('deletes the files of deleted models and datasets, at most maxDeletes a run, and keeps a live model\'s', async () => {
    const storage = await seeded();
    const clock = new ManualClock(new Date(Date.now() + 2 * hour));
    const handler = fileSweepHandler(clock, { intervalMs: hour, graceMs: hour, maxDeletes: 2 });
    expect(await handler.handle(jobContext(storage), job)).toEqual({ orphansDeleted: 2, abandonedWrites: 0, more: true });
    expect(await handler.handle(jobContext(storage), job)).toEqual({ orphansDeleted: 1, abandonedWrites: 0, more: false });
    expect(await storage.blobs.list(ctx, '')).toEqual(['models/acme/live/config.json']);
  });

  it('leaves files younger than the grace period (an upload in flight)', async () => {
    const storage = await seeded();
    const handler = fileSweepHandler(new ManualClock(new Date(Date.now() + 10 * 60_000)), { intervalMs: hour, graceMs: hour, maxDeletes: 100 });
    expect(await handler.handle(jobContext(storage), job)).toMatchObject({ orphansDeleted: 0 });
    expect(await storage.blobs.list(ctx, '')).toHaveLength(4);
  });

  it('asks for its next run at the next interval boundary, once however many instances ask', async () => {
    const storage = new MemoryStorage();
    const now = Date.now();
    await fileSweepHandler(new ManualClock(new Date(now)), { intervalMs: hour, graceMs: hour, maxDeletes: 1 }).handle(jobContext(storage), job);
    const next = fileSweepJob(now, hour);
    expect(next.runAt!.getTime()).toBe((Math.floor(now / hour) + 1) * hour);
    const first = await storage.queue.enqueue(ctx, next);
    const again = await storage.queue.enqueue(ctx, fileSweepJob(now + 1000, hour));
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({ queue: blobSweepQueue, state: 'queued', runAt: next.runAt!.toISOString() });
  });

  it('owns only <collection>/<account>/<id>/<file> keys', () => {
    const [models, datasets] = fileOwnerRules;
    expect(models!.ownerOf('models/acme/m/a/b.json')).toBe('accounts/acme/models/m');
    expect(models!.ownerOf('models/acme/m')).toBeUndefined();
    expect(datasets!.ownerOf('datasets/acme/d/train.jsonl')).toBe('accounts/acme/datasets/d');
  });
});

describe('abandoned writes', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a filesystem store removes the temporary files of writes that never finished', async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-file-sweep-'));
    const blobs = new FilesystemBlobStore({ directory: dir });
    mkdirSync(join(dir, 'tmp'), { recursive: true });
    writeFileSync(join(dir, 'tmp', 'old.tmp'), 'partial');
    writeFileSync(join(dir, 'tmp', 'fresh.tmp'), 'in flight');
    const old = new Date(Date.now() - 3 * hour);
    utimesSync(join(dir, 'tmp', 'old.tmp'), old, old);
    const storage = new MemoryStorage({ blobs });
    const result = await sweepOrphanBlobs(ctx, storage.blobs, storage.resources, fileOwnerRules, { olderThan: new Date(Date.now() - hour), maxDeletes: 10 });
    expect(result).toEqual({ orphansDeleted: 0, abandonedWrites: 1, more: false });
  });
});
