import { beforeEach, describe, expect, it } from 'vitest';
import type { MultipartFileBody, StreamedFile } from '../../api/route-spec.js';
import { Code, invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { systemClock } from '../../ports/clock.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import { MemoryStorage } from '../../testing/index.js';
import { ResourceEnvironment } from '../common/resource-environment.js';
import { GatewaySecrets } from '../common/secrets.js';
import { DatasetFileService } from './dataset-files.js';
import { DatasetService } from './dataset-service.js';

const ctx: RequestContext = {
  requestId: 'r1',
  principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin', email: 'admin@example.com' },
};
const name = 'accounts/acme/datasets/d1';
const blobKey = 'datasets/acme/datasets/d1/rows.jsonl';

let storage: MemoryStorage;
let datasets: DatasetService;
let files: DatasetFileService;

beforeEach(async () => {
  storage = new MemoryStorage();
  const env = new ResourceEnvironment(storage, systemClock, randomIdGenerator);
  const secrets = new GatewaySecrets('test-secret');
  await secrets.load(ctx, storage.kv);
  datasets = new DatasetService(env, secrets);
  files = new DatasetFileService(env, secrets, datasets, { maxFileBytes: 1024 });
  await datasets.create(ctx, 'acme', { datasetId: 'd1', dataset: { format: 'CHAT' } });
});

/** A multipart body holding `text` in pieces of `size` bytes; `end` answers as the transport's would. */
function body(text: string, options: { filename?: string; size?: number; end?: () => Promise<void> } = {}): MultipartFileBody {
  const bytes = new TextEncoder().encode(text);
  const size = options.size ?? 7;
  async function* chunks(): AsyncIterable<Uint8Array> {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  }
  const file: StreamedFile = { filename: options.filename ?? 'rows.jsonl', contentType: 'application/jsonl', chunks: chunks() };
  return { file: async () => file, end: options.end ?? (async () => undefined) };
}

const row = (id: string) => JSON.stringify({ custom_id: id, body: { messages: [{ role: 'user', content: id }] } });

describe('DatasetFileService.uploadFile', () => {
  it('stores the streamed file, answers its size and marks the dataset READY with its exampleCount', async () => {
    const text = '{"messages":[]}\n{"messages":[{"role":"user","content":"hi"}]}\n';
    await expect(files.uploadFile(ctx, name, body(text))).resolves.toEqual({ filenameToSize: { 'rows.jsonl': String(text.length) } });
    expect(await datasets.get(ctx, name)).toMatchObject({ state: 'READY', exampleCount: '2' });
    expect(new TextDecoder().decode((await storage.blobs.get(ctx, blobKey))!.bytes)).toBe(text);
    expect((await datasets.get(ctx, name)).validationDetails).toBeUndefined();
  });

  it('records the malformed rows of a batch file in validationDetails', async () => {
    const text = [row('a'), 'not json', row('b'), '{"custom_id":"c","body":{}}'].join('\n');
    await files.uploadFile(ctx, name, body(text));
    expect(await datasets.get(ctx, name)).toMatchObject({
      state: 'READY', exampleCount: '2',
      validationDetails: { malformedRowCount: '2', malformedRows: [{ filename: 'rows.jsonl', line: 2, reason: 'not valid JSON' }, { line: 4 }] },
    });
  });

  it('refuses a bad training row, a second file and an oversized file, storing nothing and staying UPLOADING', async () => {
    await expect(files.uploadFile(ctx, name, body('{"messages":[]}\n{"prompt":"x"}\n'))).rejects.toThrow('rows.jsonl line 2');
    const secondFile = async () => { throw invalidArgument('the body holds 2 files'); };
    await expect(files.uploadFile(ctx, name, body('{"messages":[]}\n', { end: secondFile }))).rejects.toThrow('2 files');
    expect(await storage.blobs.list(ctx, 'datasets/acme/datasets/d1/')).toEqual([]);
    expect((await datasets.get(ctx, name)).state).toBe('UPLOADING');
  });

  it('refuses a file name with a path part kept or bad characters, and an empty file', async () => {
    await expect(files.uploadFile(ctx, name, body('{"messages":[]}', { filename: 'bad name.jsonl' }))).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(files.uploadFile(ctx, name, body('', { filename: 'empty.jsonl' }))).rejects.toThrow('is empty');
    await files.uploadFile(ctx, name, body('{"messages":[]}\n', { filename: 'C:\\data\\rows.jsonl' }));
    expect(await storage.blobs.list(ctx, 'datasets/acme/datasets/d1/')).toEqual([blobKey]);
  });

  it('needs an UPLOADING dataset', async () => {
    await files.uploadFile(ctx, name, body('{"messages":[]}\n'));
    await expect(files.uploadFile(ctx, name, body('{"messages":[]}\n'))).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
  });
});

describe('DatasetFileService.validateUpload on batch rows', () => {
  it('keeps the signed-URL flow and records malformed batch rows the same way', async () => {
    const text = `${row('a')}\n{oops\n`;
    const url = (await files.getUploadEndpoint(ctx, name, { filenameToSize: { 'rows.jsonl': String(text.length) } })).filenameToSignedUrls['rows.jsonl']!;
    const query = new URLSearchParams(url.split('?')[1]);
    await files.putFile(ctx, { dataset: name, filename: 'rows.jsonl', method: 'PUT', expires: query.get('expires')!, signature: query.get('signature')! }, new TextEncoder().encode(text), 'application/jsonl');
    await files.validateUpload(ctx, name, {});
    expect(await datasets.get(ctx, name)).toMatchObject({ exampleCount: '1', validationDetails: { malformedRowCount: '1' } });
  });
});
