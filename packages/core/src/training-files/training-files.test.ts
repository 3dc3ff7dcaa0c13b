import { beforeEach, describe, expect, it } from 'vitest';
import { sliceCopies } from '../blobs/index.js';
import type { RequestContext } from '../kernel/request-context.js';
import { systemClock } from '../ports/clock.js';
import { GatewaySecrets } from '../resources/common/secrets.js';
import type { SignedFileRequest } from '../resources/common/signed-file-urls.js';
import { MemoryStorage } from '../testing/index.js';
import { TrainingFiles } from './training-files.js';

const ctx: RequestContext = { requestId: 'training-files-test' };
const job = 'accounts/acme/reinforcementFineTuningJobs/j1';
let storage: MemoryStorage;
let files: TrainingFiles;

beforeEach(async () => {
  storage = new MemoryStorage();
  const secrets = new GatewaySecrets('test-secret');
  await secrets.load(ctx, storage.kv);
  files = new TrainingFiles(storage.blobs, secrets, systemClock, { maxFileBytes: 8 });
});

function putRequest(path: string): SignedFileRequest {
  const query = new URLSearchParams(files.signedUrl(job, path, 'PUT').split('?')[1]);
  return { resource: job, filename: path, method: 'PUT', expires: query.get('expires')!, signature: query.get('signature')! };
}

const body = (text: string, declaredLength?: number) => ({ declaredLength, chunks: sliceCopies(new TextEncoder().encode(text)) });

describe('TrainingFiles.putFile', () => {
  it('stores a body of its declared length, or of no declared length within the limit', async () => {
    await files.putFile(ctx, putRequest('a.json'), body('{"a":1}', 7), 'application/json');
    await files.putFile(ctx, putRequest('b.json'), body('{}'), 'application/json');
    expect(new TextDecoder().decode(await files.read(ctx, job, 'a.json'))).toBe('{"a":1}');
    expect(new TextDecoder().decode(await files.read(ctx, job, 'b.json'))).toBe('{}');
  });

  it('refuses a body shorter or longer than its declared length, and one past the limit; nothing is stored', async () => {
    await expect(files.putFile(ctx, putRequest('short.json'), body('{}', 7), 'application/json')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('ended after 2 of 7 bytes') });
    await expect(files.putFile(ctx, putRequest('long.json'), body('{"a":1}', 2), 'application/json')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('more than the 2 bytes declared') });
    await expect(files.putFile(ctx, putRequest('big.json'), body('{"a":12345}'), 'application/json')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('more than the 8 bytes allowed') });
    await expect(files.putFile(ctx, putRequest('big.json'), body('{"a":12345}', 11), 'application/json')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await storage.blobs.list(ctx, files.prefixOf(job))).toEqual([]);
  });
});
