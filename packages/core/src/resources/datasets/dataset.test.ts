import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../testing/index.js';
import { sliceCopies } from '../../blobs/index.js';
import { Code, invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { systemClock } from '../../ports/clock.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import { ResourceEnvironment } from '../common/resource-environment.js';
import { GatewaySecrets } from '../common/secrets.js';
import { canTransition } from '../common/state-machine.js';
import { datasetStateMachine } from './dataset-state-machine.js';
import { datasetStateValues } from './dataset-schema.js';
import { DatasetService } from './dataset-service.js';
import { DatasetFileService } from './dataset-files.js';
import type { MultipartFileBody, StreamedFile } from '../../api/route-spec.js';

const ctx: RequestContext = {
  requestId: 'r1',
  principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin', email: 'admin@example.com' },
};
const viewer: RequestContext = {
  requestId: 'r2',
  principal: { userName: 'accounts/acme/users/bob', accountId: 'acme', role: 'inference-user' },
};

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
});

describe('dataset state machine', () => {
  it('declares every state and only known targets', () => {
    expect(Object.keys(datasetStateMachine.transitions).sort()).toEqual([...datasetStateValues].sort());
    for (const targets of Object.values(datasetStateMachine.transitions)) {
      for (const target of targets) expect(datasetStateValues).toContain(target);
    }
    expect(datasetStateMachine.initial).toBe('UPLOADING');
  });

  it('walks the table: UPLOADING → READY, READY is final', () => {
    for (const from of datasetStateValues) {
      for (const to of datasetStateValues) {
        const allowed = canTransition(datasetStateMachine, from, to);
        const expected = (from === 'UPLOADING' && to === 'READY') || (from === 'STATE_UNSPECIFIED' && to !== 'STATE_UNSPECIFIED');
        expect(allowed, `${from} → ${to}`).toBe(expected);
      }
    }
  });
});

describe('DatasetService.create', () => {
  it('creates an UPLOADING dataset with a generated id, server fields and createdBy', async () => {
    const created = await datasets.create(ctx, 'acme', { dataset: { displayName: 'Train', format: 'CHAT', exampleCount: '12' } });
    expect(created.name).toMatch(/^accounts\/acme\/datasets\/[a-z][a-z0-9]{15}$/);
    expect(created).toMatchObject({ displayName: 'Train', format: 'CHAT', exampleCount: '12', state: 'UPLOADING', createdBy: 'admin@example.com' });
    expect(typeof created.createTime).toBe('string');
    expect(created.updateTime).toBe(created.createTime);
  });

  it('uses the datasetId given in the body and refuses a duplicate', async () => {
    const created = await datasets.create(ctx, 'acme', { datasetId: 'train', dataset: {} });
    expect(created.name).toBe('accounts/acme/datasets/train');
    await expect(datasets.create(ctx, 'acme', { datasetId: 'train', dataset: {} })).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
  });

  it('rejects an invalid datasetId', async () => {
    await expect(datasets.create(ctx, 'acme', { datasetId: 'Bad_Id', dataset: {} })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'datasetId' });
  });

  it('validates the wrapper strictly', async () => {
    await expect(datasets.create(ctx, 'acme', { dataset: {}, extra: 1 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'UNKNOWN_FIELD' });
    await expect(datasets.create(ctx, 'acme', { dataset: 'x' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(datasets.create(ctx, 'acme', [])).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });

  it('validates the dataset against the resource schema', async () => {
    await expect(datasets.create(ctx, 'acme', { dataset: { unknown: true } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'UNKNOWN_FIELD' });
    await expect(datasets.create(ctx, 'acme', { dataset: { format: 'TABLE' } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'format' });
    await expect(datasets.create(ctx, 'acme', { dataset: { exampleCount: 12 } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'exampleCount' });
    await expect(datasets.create(ctx, 'acme', { dataset: { estimatedTokenCount: '-1' } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(datasets.create(ctx, 'acme', { dataset: { displayName: 'x'.repeat(64) } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'displayName' });
  });

  it('ignores output-only fields given by the client', async () => {
    const created = await datasets.create(ctx, 'acme', {
      dataset: { name: 'accounts/other/datasets/x', state: 'READY', createdBy: 'mallory@example.com', createTime: '2000-01-01T00:00:00Z', sourceDataset: 'accounts/acme/datasets/z' },
    });
    expect(created.name).not.toBe('accounts/other/datasets/x');
    expect(created.state).toBe('UPLOADING');
    expect(created.createdBy).toBe('admin@example.com');
    expect(created.createTime).not.toBe('2000-01-01T00:00:00Z');
    expect(created.sourceDataset).toBeUndefined();
  });

  it('omits createdBy for a caller without an e-mail', async () => {
    const created = await datasets.create({ requestId: 'sys' }, 'acme', { dataset: {} });
    expect(created.createdBy).toBeUndefined();
  });

  it('is READY at once when externalUrl is set', async () => {
    const created = await datasets.create(ctx, 'acme', { dataset: { externalUrl: 'https://example.com/data.jsonl' } });
    expect(created.state).toBe('READY');
  });

  it('keeps sourceJobName as given', async () => {
    const created = await datasets.create(ctx, 'acme', { dataset: { sourceJobName: 'accounts/acme/batchInferenceJobs/j1' } });
    expect(created.sourceJobName).toBe('accounts/acme/batchInferenceJobs/j1');
  });

  it('checks the permission and the account', async () => {
    await expect(datasets.create(viewer, 'acme', { dataset: {} })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(datasets.create(ctx, 'other', { dataset: {} })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(datasets.create(ctx, 'Bad!', { dataset: {} })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });
});

describe('derived datasets (sourceDatasetId + filter)', () => {
  it('derives from a READY source: lineage recorded, format copied, READY at once', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'src', dataset: { format: 'COMPLETION', externalUrl: 'https://example.com/a.jsonl', sourceJobName: 'accounts/acme/batchInferenceJobs/j' } });
    const derived = await datasets.create(ctx, 'acme', { datasetId: 'sub', sourceDatasetId: 'src', filter: 'turns > 2', dataset: { displayName: 'subset' } });
    expect(derived).toMatchObject({
      name: 'accounts/acme/datasets/sub',
      format: 'COMPLETION',
      state: 'READY',
      sourceDataset: 'accounts/acme/datasets/src',
      sourceFilter: 'turns > 2',
    });
    expect(derived.sourceJobName).toBeUndefined();
    expect(derived.externalUrl).toBeUndefined();
  });

  it('accepts the source as a full name and stays UPLOADING while the source is UPLOADING', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'src', dataset: { format: 'CHAT' } });
    const derived = await datasets.create(ctx, 'acme', { sourceDatasetId: 'accounts/acme/datasets/src', filter: 'x', dataset: {} });
    expect(derived).toMatchObject({ state: 'UPLOADING', format: 'CHAT', sourceDataset: 'accounts/acme/datasets/src' });
  });

  it('refuses a missing source, a source in another account and an invalid source id', async () => {
    await expect(datasets.create(ctx, 'acme', { sourceDatasetId: 'nope', filter: 'x', dataset: {} })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT, field: 'sourceDatasetId', reason: 'REFERENCE_NOT_FOUND',
    });
    await expect(datasets.create(ctx, 'acme', { sourceDatasetId: 'accounts/other/datasets/src', filter: 'x', dataset: {} })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED, message: 'permission denied on accounts/other',
    });
    await expect(datasets.create(ctx, 'acme', { sourceDatasetId: 'accounts/acme/models/src', filter: 'x', dataset: {} })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT, field: 'sourceDatasetId',
    });
    await expect(datasets.create(ctx, 'acme', { sourceDatasetId: 'Bad Id', filter: 'x', dataset: {} })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT, field: 'sourceDatasetId',
    });
  });

  it('requires a non-blank filter with sourceDatasetId, and allows it only with one', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'src', dataset: {} });
    await expect(datasets.create(ctx, 'acme', { sourceDatasetId: 'src', dataset: {} })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'filter' });
    await expect(datasets.create(ctx, 'acme', { sourceDatasetId: 'src', filter: '   ', dataset: {} })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'filter' });
    await expect(datasets.create(ctx, 'acme', { filter: 'x', dataset: {} })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'filter' });
  });

  it('refuses a format different from the source, and an externalUrl', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'src', dataset: { format: 'CHAT' } });
    await expect(datasets.create(ctx, 'acme', { sourceDatasetId: 'src', filter: 'x', dataset: { format: 'RL' } })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT, field: 'dataset.format',
    });
    await expect(datasets.create(ctx, 'acme', { sourceDatasetId: 'src', filter: 'x', dataset: { externalUrl: 'https://e.com/x' } })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT, field: 'dataset.externalUrl',
    });
    const same = await datasets.create(ctx, 'acme', { sourceDatasetId: 'src', filter: 'x', dataset: { format: 'CHAT' } });
    expect(same.format).toBe('CHAT');
  });
});

describe('DatasetService get, list, delete', () => {
  it('gets with a readMask and answers NOT_FOUND for a missing dataset', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'd1', dataset: { displayName: 'One', format: 'CHAT' } });
    expect(await datasets.get(ctx, 'accounts/acme/datasets/d1', 'display_name')).toEqual({ name: 'accounts/acme/datasets/d1', displayName: 'One' });
    expect((await datasets.get(ctx, 'accounts/acme/datasets/d1', '*')).format).toBe('CHAT');
    await expect(datasets.get(ctx, 'accounts/acme/datasets/missing')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(datasets.get(ctx, 'accounts/acme/datasets/d1', 'nope')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(datasets.get(ctx, 'accounts/acme/models/d1')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });

  it('lists with filter and orderBy on declared fields', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'a', dataset: { format: 'CHAT', exampleCount: '5' } });
    await datasets.create(ctx, 'acme', { datasetId: 'b', dataset: { format: 'RL', exampleCount: '50', externalUrl: 'https://e.com/b' } });
    await datasets.create(ctx, 'acme', { datasetId: 'c', dataset: { format: 'CHAT', exampleCount: '500' } });
    const chat = await datasets.list(ctx, 'acme', { filter: 'format = CHAT', orderBy: 'example_count desc' });
    expect(chat.items.map((d) => d.name)).toEqual(['accounts/acme/datasets/c', 'accounts/acme/datasets/a']);
    expect(chat.totalSize).toBe(2);
    const ready = await datasets.list(ctx, 'acme', { filter: 'state = READY' });
    expect(ready.items.map((d) => d.name)).toEqual(['accounts/acme/datasets/b']);
    const big = await datasets.list(ctx, 'acme', { filter: 'exampleCount > 10 AND created_by = "admin@example.com"', orderBy: 'name' });
    expect(big.items.map((d) => d.name)).toEqual(['accounts/acme/datasets/b', 'accounts/acme/datasets/c']);
    const page = await datasets.list(ctx, 'acme', { pageSize: 2, readMask: 'state' });
    expect(page.items).toHaveLength(2);
    expect(Object.keys(page.items[0]!).sort()).toEqual(['name', 'state']);
    expect(page.nextPageToken).toBeDefined();
    await expect(datasets.list(ctx, 'acme', { filter: 'format = TABLE' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });

  it('deletes, then answers NOT_FOUND', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'd1', dataset: {} });
    await datasets.delete(ctx, 'accounts/acme/datasets/d1');
    await expect(datasets.get(ctx, 'accounts/acme/datasets/d1')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(datasets.delete(ctx, 'accounts/acme/datasets/d1')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('deleting a dataset removes its files and its upload plan: a new dataset of the name starts empty', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'd1', dataset: {} });
    await storage.blobs.put(ctx, 'datasets/acme/datasets/d1/old.jsonl', new TextEncoder().encode('{}\n'), 'application/jsonl');
    await storage.blobs.put(ctx, 'datasets/acme/datasets/d10/other.jsonl', new TextEncoder().encode('{}\n'), 'application/jsonl');
    await files.getUploadEndpoint(ctx, 'accounts/acme/datasets/d1', { filenameToSize: { 'old.jsonl': '3' } });
    await datasets.delete(ctx, 'accounts/acme/datasets/d1');
    expect(await storage.blobs.list(ctx, 'datasets/acme/datasets/d1/')).toEqual([]);
    expect(await storage.blobs.list(ctx, 'datasets/acme/datasets/d10/')).toEqual(['datasets/acme/datasets/d10/other.jsonl']);
    expect(await storage.resources.get(ctx, 'accounts/acme/datasets/d1/uploadPlans/current')).toBeUndefined();
  });

  it('has no update method', () => {
    expect((datasets as unknown as Record<string, unknown>).update).toBeUndefined();
  });
});

describe('DatasetService.markReady', () => {
  it('moves UPLOADING to READY and records counts as int64 strings', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'd1', dataset: {} });
    const ready = await datasets.markReady(ctx, 'accounts/acme/datasets/d1', { exampleCount: 42, estimatedTokenCount: '9000' });
    expect(ready).toMatchObject({ state: 'READY', exampleCount: '42', estimatedTokenCount: '9000' });
    expect((await datasets.get(ctx, 'accounts/acme/datasets/d1')).state).toBe('READY');
  });

  it('is FAILED_PRECONDITION on a READY dataset and NOT_FOUND on a missing one', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'd1', dataset: { externalUrl: 'https://e.com/x' } });
    await expect(datasets.markReady(ctx, 'accounts/acme/datasets/d1')).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
    await expect(datasets.markReady(ctx, 'accounts/acme/datasets/none')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('rejects invalid counts', async () => {
    await datasets.create(ctx, 'acme', { datasetId: 'd1', dataset: {} });
    await expect(datasets.markReady(ctx, 'accounts/acme/datasets/d1', { exampleCount: -1 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(datasets.markReady(ctx, 'accounts/acme/datasets/d1', { exampleCount: 1.5 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(datasets.markReady(ctx, 'accounts/acme/datasets/d1', { exampleCount: '99999999999999999999' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });
});

// The upload flows: `:upload` (a streamed multipart file) and batch rows through `:validateUpload`.
const name = 'accounts/acme/datasets/d1';
const blobKey = 'datasets/acme/datasets/d1/rows.jsonl';
const createUploading = async () => {
  await datasets.create(ctx, 'acme', { datasetId: 'd1', dataset: { format: 'CHAT' } });
};

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
  beforeEach(createUploading);

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
  beforeEach(createUploading);

  it('keeps the signed-URL flow and records malformed batch rows the same way', async () => {
    const text = `${row('a')}\n{oops\n`;
    const url = (await files.getUploadEndpoint(ctx, name, { filenameToSize: { 'rows.jsonl': String(text.length) } })).filenameToSignedUrls['rows.jsonl']!;
    const query = new URLSearchParams(url.split('?')[1]);
    await files.putFile(ctx, { resource: name, filename: 'rows.jsonl', method: 'PUT', expires: query.get('expires')!, signature: query.get('signature')! }, { declaredLength: text.length, chunks: sliceCopies(new TextEncoder().encode(text)) }, 'application/jsonl');
    await files.validateUpload(ctx, name, {});
    expect(await datasets.get(ctx, name)).toMatchObject({ exampleCount: '1', validationDetails: { malformedRowCount: '1' } });
  });
});
