import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../testing/index.js';
import { ManualClock } from '../../testing/test-gateway.js';
import { buildSafetensors } from '../../testing/safetensors-builder.js';
import { GatewayError } from '../../errors/index.js';
import { StreamAnswer } from '../../api/route-spec.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { StorageTransaction } from '../../ports/storage.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import type { JsonObject } from '../../ports/json.js';
import { ResourceEnvironment } from '../common/resource-environment.js';
import { GatewaySecrets } from '../common/secrets.js';
import type { SignedFileRequest, SignedMethod } from '../common/signed-file-urls.js';
import { listModelFiles } from './model-files.js';
import { ModelFileService } from './model-file-service.js';
import { ModelService } from './model-service.js';

const ctx: RequestContext = {
  requestId: 'r1',
  principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin', email: 'admin@example.com' },
};
const base = 'accounts/acme/models/base';
const addon = 'accounts/acme/models/addon';
const encoder = new TextEncoder();

let storage: MemoryStorage;
let clock: ManualClock;
let models: ModelService;
let files: ModelFileService;

beforeEach(async () => {
  storage = new MemoryStorage();
  clock = new ManualClock();
  const env = new ResourceEnvironment(storage, clock, randomIdGenerator);
  const secrets = new GatewaySecrets('test-secret');
  await secrets.load(ctx, storage.kv);
  models = new ModelService(env, secrets);
  files = new ModelFileService(env, secrets, models, { maxFileBytes: 64 * 1024, maxModelBytes: 100 * 1024 });
});

/** A tiny llama-like checkpoint: two layers' q/v projections and an embedding, BF16. */
const checkpointTensors = [
  { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [32, 8] },
  { name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'BF16', shape: [8, 8] },
  { name: 'model.layers.0.self_attn.v_proj.weight', dtype: 'BF16', shape: [8, 8] },
  { name: 'model.norm.weight', dtype: 'F32', shape: [8] },
];
const checkpoint = buildSafetensors(checkpointTensors);
const config = encoder.encode(JSON.stringify({ model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 8 }));
const adapterConfig = (extra: JsonObject = {}) => encoder.encode(JSON.stringify({ peft_type: 'LORA', r: 4, target_modules: ['q_proj'], ...extra }));
const adapterWeights = (rank = 4, rows = 8) => buildSafetensors([
  { name: 'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight', dtype: 'BF16', shape: [rank, 8] },
  { name: 'base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight', dtype: 'BF16', shape: [rows, rank] },
]);

async function createBase(details: JsonObject = {}): Promise<void> {
  await models.create(ctx, 'acme', { kind: 'HUB_BASE_MODEL', baseModelDetails: { checkpointFormat: 'HUB', hubFiles: ['config.json', 'model.safetensors'], ...details } }, 'base');
}

/** Announces the files and answers each one's signed PUT request. */
async function announce(model: string, sizes: Record<string, number>): Promise<Record<string, SignedFileRequest>> {
  const { filenameToSignedUrls } = await files.getUploadEndpoint(ctx, model, { filenameToSize: Object.fromEntries(Object.entries(sizes).map(([n, s]) => [n, String(s)])) });
  return Object.fromEntries(Object.entries(filenameToSignedUrls).map(([name, url]) => [name, requestOf(model, name, url, 'PUT')]));
}

function requestOf(model: string, filename: string, url: string, method: SignedMethod): SignedFileRequest {
  const query = new URLSearchParams(url.split('?')[1]);
  expect(url.split('?')[0]).toBe(`/v1/${model}/files/${encodeURIComponent(filename)}`);
  return { resource: model, filename, method, expires: query.get('expires')!, signature: query.get('signature')! };
}

async function* chunksOf(bytes: Uint8Array, size = 5): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.byteLength; i += size) yield bytes.subarray(i, i + size);
}
const body = (bytes: Uint8Array, declaredLength?: number) => ({ declaredLength, chunks: chunksOf(bytes) });

async function upload(model: string, contents: Record<string, Uint8Array>): Promise<void> {
  const requests = await announce(model, Object.fromEntries(Object.entries(contents).map(([n, b]) => [n, b.byteLength])));
  for (const [name, bytes] of Object.entries(contents)) await files.putFile(ctx, requests[name]!, body(bytes, bytes.byteLength), 'application/octet-stream');
}

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

async function readAll(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return new Uint8Array(Buffer.concat(parts));
}

describe('a HUB checkpoint', () => {
  it('uploads, validates to READY with the facts of its headers, and downloads the same bytes', async () => {
    await createBase();
    expect((await models.get(ctx, base)).state).toBe('UPLOADING');
    await upload(base, { 'config.json': config, 'model.safetensors': checkpoint });
    expect((await models.get(ctx, base)).state).toBe('UPLOADING');
    await files.validateUpload(ctx, base);
    const ready = await models.get(ctx, base);
    expect(ready.state).toBe('READY');
    expect(ready.baseModelDetails).toMatchObject({ parameterCount: String(256 + 64 + 64 + 8), defaultPrecision: 'BF16', modelType: 'llama' });
    const { filenameToSignedUrls } = await files.getDownloadEndpoint(ctx, base);
    expect(Object.keys(filenameToSignedUrls)).toEqual(['config.json', 'model.safetensors']);
    const file = await files.downloadFile(ctx, requestOf(base, 'model.safetensors', filenameToSignedUrls['model.safetensors']!, 'GET'));
    if (!(file instanceof StreamAnswer)) throw new Error('expected a stream');
    expect([file.status, file.length]).toEqual([200, checkpoint.byteLength]);
    expect(await readAll(file.body)).toEqual(checkpoint);
    const part = await files.downloadFile(ctx, requestOf(base, 'model.safetensors', filenameToSignedUrls['model.safetensors']!, 'GET'), { range: 'bytes=-8' });
    if (!(part instanceof StreamAnswer)) throw new Error('expected a stream');
    expect([part.status, part.headers['content-range']]).toEqual([206, `bytes ${checkpoint.byteLength - 8}-${checkpoint.byteLength - 1}/${checkpoint.byteLength}`]);
    expect(await readAll(part.body)).toEqual(checkpoint.subarray(-8));
  });

  it('keeps a given parameterCount and refuses a model_type other than the declared one', async () => {
    await createBase({ parameterCount: '7', modelType: 'mistral' });
    await upload(base, { 'config.json': config, 'model.safetensors': checkpoint });
    const error = await refusal(files.validateUpload(ctx, base));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe('file "config.json": has model_type "llama" but baseModelDetails.modelType is "mistral"');
    const model = await models.get(ctx, base);
    expect(model).toMatchObject({ state: 'UPLOADING', status: { code: 'INVALID_ARGUMENT', message: error.message } });
    expect(model.baseModelDetails?.parameterCount).toBe('7');
  });

  it('a listed hub file that never arrived fails validation with FAILED_PRECONDITION naming it', async () => {
    await createBase({ hubFiles: ['config.json', 'model.safetensors', 'tokenizer.json'] });
    await upload(base, { 'config.json': config, 'model.safetensors': checkpoint });
    const error = await refusal(files.validateUpload(ctx, base));
    expect(error.code).toBe('FAILED_PRECONDITION');
    expect(error.message).toContain('file "tokenizer.json"');
    expect((await models.get(ctx, base)).state).toBe('UPLOADING');
  });

  it('an announced file not uploaded fails validation; uploading it then validates', async () => {
    await createBase();
    const requests = await announce(base, { 'config.json': config.byteLength, 'model.safetensors': checkpoint.byteLength });
    await files.putFile(ctx, requests['config.json']!, body(config), 'application/json');
    const error = await refusal(files.validateUpload(ctx, base));
    expect(error.message).toBe('file "model.safetensors": was announced but has not been uploaded');
    await files.putFile(ctx, requests['model.safetensors']!, body(checkpoint), 'application/octet-stream');
    await files.validateUpload(ctx, base);
    expect((await models.get(ctx, base)).status).toBeUndefined();
  });

  it('a shard index naming a tensor its file lacks is refused', async () => {
    await createBase({ hubFiles: ['config.json'] });
    const index = encoder.encode(JSON.stringify({ weight_map: { 'model.embed_tokens.weight': 'model.safetensors', 'lm_head.weight': 'model.safetensors' } }));
    await upload(base, { 'config.json': config, 'model.safetensors': checkpoint, 'model.safetensors.index.json': index });
    const error = await refusal(files.validateUpload(ctx, base));
    expect(error.message).toBe('file "model.safetensors": holds no tensor "lm_head.weight" although model.safetensors.index.json maps it there');
    await expect(files.validateUpload(ctx, base, { configOnly: true })).resolves.toEqual({});
  });

  it('config.json may be skipped, but not the weights', async () => {
    await createBase({ hubFiles: ['notes.txt'] });
    await upload(base, { 'notes.txt': encoder.encode('hello') });
    expect((await refusal(files.validateUpload(ctx, base, { skipConfig: true }))).message).toContain('file "model.safetensors": a HUB checkpoint needs its weights');
  });
});

describe('uploads refused with a 400 naming the file, leaving nothing stored', () => {
  beforeEach(async () => {
    await createBase();
  });

  it.each([
    ['more bytes than announced', (b: Uint8Array) => body(new Uint8Array([...b, 1, 2, 3])), 'more than the'],
    ['fewer bytes than announced (a cut upload)', (b: Uint8Array) => body(b.subarray(0, b.byteLength - 3)), 'the upload ended after'],
    ['a Content-Length other than announced', (b: Uint8Array) => body(b, b.byteLength + 1), 'the request carries'],
  ])('%s', async (_what, make, message) => {
    const requests = await announce(base, { 'model.safetensors': checkpoint.byteLength });
    const error = await refusal(files.putFile(ctx, requests['model.safetensors']!, make(checkpoint), 'application/octet-stream'));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/^file "model.safetensors": /);
    expect(error.message).toContain(message);
    expect(await listModelFiles(ctx, storage.blobs, base)).toEqual([]);
  });

  it('a corrupt safetensors header', async () => {
    const corrupt = checkpoint.slice();
    new DataView(corrupt.buffer).setBigUint64(0, 1n << 40n, true);
    const requests = await announce(base, { 'model.safetensors': corrupt.byteLength });
    const error = await refusal(files.putFile(ctx, requests['model.safetensors']!, body(corrupt), 'application/octet-stream'));
    expect(error.message).toMatch(/^file "model.safetensors": not a valid safetensors file: the header length \d+ exceeds/);
    expect(await listModelFiles(ctx, storage.blobs, base)).toEqual([]);
  });

  it('a file not announced, even with a valid signature for another model', async () => {
    const requests = await announce(base, { 'config.json': config.byteLength });
    const other = { ...requests['config.json']!, filename: 'extra.json' };
    expect((await refusal(files.putFile(ctx, other, body(config), 'application/json'))).code).toBe('PERMISSION_DENIED');
    await models.create(ctx, 'acme', { kind: 'HUB_BASE_MODEL', baseModelDetails: { checkpointFormat: 'HUB', hubFiles: ['a'] } }, 'other');
    const signed = await announce('accounts/acme/models/other', { 'config.json': 2 });
    await storage.resources.delete(ctx, 'accounts/acme/models/other/uploadPlans/current');
    const error = await refusal(files.putFile(ctx, signed['config.json']!, body(encoder.encode('{}')), 'application/json'));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('file "config.json" was not announced');
  });

  it('path traversal and other bad names at announcement', async () => {
    for (const name of ['../x', '/abs', 'a//b']) {
      const error = await refusal(files.getUploadEndpoint(ctx, base, { filenameToSize: { [name]: '1' } }));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(`file ${JSON.stringify(name)}`);
    }
  });

  it('sizes over the per-file and per-model caps', async () => {
    const perFile = await refusal(files.getUploadEndpoint(ctx, base, { filenameToSize: { 'big.safetensors': String(64 * 1024 + 1) } }));
    expect(perFile.message).toContain('file "big.safetensors"');
    await announce(base, { 'a.safetensors': 60 * 1024 });
    const perModel = await refusal(files.getUploadEndpoint(ctx, base, { filenameToSize: { 'b.safetensors': String(60 * 1024) } }));
    expect(perModel.message).toContain('more than the 102400 a model may hold');
  });

  it('an expired or forged URL', async () => {
    const requests = await announce(base, { 'config.json': config.byteLength });
    expect((await refusal(files.putFile(ctx, { ...requests['config.json']!, signature: 'x' }, body(config), 'application/json'))).code).toBe('PERMISSION_DENIED');
    clock.advance(3601_000);
    expect((await refusal(files.putFile(ctx, requests['config.json']!, body(config), 'application/json'))).message).toContain('expired');
  });
});

describe('upload state', () => {
  it('a model created for upload is UPLOADING at create; a registered one is READY until its first announcement', async () => {
    await createBase();
    expect((await models.get(ctx, base)).state).toBe('UPLOADING');
    expect((await refusal(files.getDownloadEndpoint(ctx, base))).message).toContain('is UPLOADING');
    const registered = (id: string, extra: JsonObject) => models.create(ctx, 'acme', { kind: 'HUB_BASE_MODEL', ...extra, baseModelDetails: { checkpointFormat: 'HUB', hubFiles: ['model.safetensors'], ...(extra.baseModelDetails as JsonObject | undefined) } }, id);
    expect((await registered('counted', { baseModelDetails: { parameterCount: '8000000000' } })).state).toBe('READY');
    expect((await registered('hubbed', { modelHubUrl: 'https://hub.example/m' })).state).toBe('READY');
    expect((await models.create(ctx, 'acme', { kind: 'HUB_BASE_MODEL', baseModelDetails: { checkpointFormat: 'NATIVE' } }, 'native')).state).toBe('READY');
    await announce('accounts/acme/models/counted', { 'model.safetensors': checkpoint.byteLength });
    expect((await models.get(ctx, 'accounts/acme/models/counted')).state).toBe('UPLOADING');
    const addonOf = (id: string, baseModel: string) => models.create(ctx, 'acme', { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel, r: 4, targetModules: ['q_proj'] } }, id);
    expect((await addonOf('on-uploading', base)).state).toBe('UPLOADING');
    expect((await addonOf('on-registered', 'accounts/acme/models/hubbed')).state).toBe('READY');
  });

  it('only a successful validation makes a created-for-upload model READY', async () => {
    await createBase();
    expect((await refusal(files.validateUpload(ctx, base))).message).toContain('has no announced files');
    expect((await models.get(ctx, base)).state).toBe('UPLOADING');
    await upload(base, { 'config.json': config, 'model.safetensors': checkpoint });
    await files.validateUpload(ctx, base);
    expect((await models.get(ctx, base)).state).toBe('READY');
    const addonName = 'accounts/acme/models/late-addon';
    expect((await models.create(ctx, 'acme', { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: base, r: 4, targetModules: ['q_proj'] } }, 'late-addon')).state).toBe('UPLOADING');
    await upload(addonName, { 'adapter_config.json': adapterConfig(), 'adapter_model.safetensors': adapterWeights() });
    await files.validateUpload(ctx, addonName);
    expect((await models.get(ctx, addonName)).state).toBe('READY');
  });

  it('a READY model with uploaded files does not take new files; other kinds take none', async () => {
    await createBase();
    await upload(base, { 'config.json': config, 'model.safetensors': checkpoint });
    await files.validateUpload(ctx, base);
    expect((await refusal(announce(base, { 'x.json': 1 }))).code).toBe('FAILED_PRECONDITION');
    await models.create(ctx, 'acme', { kind: 'CUSTOM_MODEL' }, 'custom');
    expect((await refusal(announce('accounts/acme/models/custom', { 'x.json': 1 }))).message).toContain('CUSTOM_MODEL');
  });

  it('concurrent announcements of different files of one model are all kept', async () => {
    await createBase();
    const names = Array.from({ length: 10 }, (_, i) => `part-${i}.json`);
    const requests = await Promise.all(names.map((name) => announce(base, { [name]: 2 })));
    for (const [i, name] of names.entries()) await files.putFile(ctx, requests[i]![name]!, body(encoder.encode('{}')), 'application/json');
    expect(await listModelFiles(ctx, storage.blobs, base)).toEqual([...names].sort());
  });

  it('deleting a model removes its files and its upload, so a new model of the name starts empty', async () => {
    await createBase();
    await upload(base, { 'config.json': config, 'model.safetensors': checkpoint });
    await files.validateUpload(ctx, base);
    await models.delete(ctx, base);
    expect(await listModelFiles(ctx, storage.blobs, base)).toEqual([]);
    await createBase();
    await announce(base, { 'config.json': config.byteLength });
    await models.delete(ctx, base);
    expect(await storage.resources.get(ctx, 'accounts/acme/models/base/uploadPlans/current')).toBeUndefined();
  });

  it('deleting a model removes it and its upload plan in one transaction: when the plan cannot go, the model stays', async () => {
    await createBase();
    await announce(base, { 'config.json': config.byteLength });
    // A storage whose transactions cannot delete upload plans (a crash between the two deletes, as a failure).
    const failing = new Proxy(storage, {
      get(target, key, receiver) {
        if (key !== 'transaction') return Reflect.get(target, key, receiver) as unknown;
        return (txCtx: RequestContext, work: (tx: StorageTransaction) => Promise<unknown>) => target.transaction(txCtx, (tx) => work(new Proxy(tx, {
          get(txTarget, txKey, txReceiver) {
            const value = Reflect.get(txTarget, txKey, txReceiver) as unknown;
            if (txKey !== 'resources') return value;
            const resources = value as StorageTransaction['resources'];
            return new Proxy(resources, {
              get(store, storeKey, storeReceiver) {
                if (storeKey !== 'delete') return Reflect.get(store, storeKey, storeReceiver) as unknown;
                return (c: RequestContext, name: string, etag?: string) => (name.endsWith('/uploadPlans/current') ? Promise.reject(new Error('storage lost')) : store.delete(c, name, etag));
              },
            });
          },
        })));
      },
    });
    const failingModels = new ModelService(new ResourceEnvironment(failing, clock, randomIdGenerator), new GatewaySecrets('test-secret'));
    await expect(failingModels.delete(ctx, base)).rejects.toThrow('storage lost');
    expect((await models.get(ctx, base)).state).toBe('UPLOADING');
    expect(await storage.resources.get(ctx, 'accounts/acme/models/base/uploadPlans/current')).toBeDefined();
    await models.delete(ctx, base);
    expect(await storage.resources.get(ctx, 'accounts/acme/models/base/uploadPlans/current')).toBeUndefined();
    expect((await refusal(models.get(ctx, base))).code).toBe('NOT_FOUND');
  });

  it('validation and download need the right state', async () => {
    await createBase({ parameterCount: '8' });
    expect((await refusal(files.validateUpload(ctx, base))).code).toBe('FAILED_PRECONDITION');
    expect((await refusal(files.getDownloadEndpoint(ctx, base))).message).toContain('holds no uploaded files');
    await announce(base, { 'config.json': 2 });
    expect((await refusal(files.getDownloadEndpoint(ctx, base))).message).toContain('is UPLOADING');
  });
});

describe('a PEFT add-on', () => {
  beforeEach(async () => {
    await createBase();
    await upload(base, { 'config.json': config, 'model.safetensors': checkpoint });
    await files.validateUpload(ctx, base);
  });

  const createAddon = (peft: JsonObject = {}) =>
    models.create(ctx, 'acme', { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: base, r: 4, targetModules: ['q_proj'], ...peft } }, 'addon');

  it('validates against its base and records the base model type', async () => {
    await createAddon();
    await upload(addon, { 'adapter_config.json': adapterConfig(), 'adapter_model.safetensors': adapterWeights() });
    await files.validateUpload(ctx, addon);
    expect(await models.get(ctx, addon)).toMatchObject({ state: 'READY', peftDetails: { baseModelType: 'llama' } });
  });

  it.each([
    ['a rank other than peftDetails.r', adapterConfig({ r: 8 }), adapterWeights(), 'file "adapter_config.json": has r 8 but peftDetails.r is 4'],
    ['other target modules', adapterConfig({ target_modules: ['q_proj', 'v_proj'] }), adapterWeights(), 'file "adapter_config.json": has target_modules [q_proj, v_proj] but peftDetails.targetModules is [q_proj]'],
    ['weights of another rank', adapterConfig(), adapterWeights(2), 'file "adapter_model.safetensors": module "base_model.model.model.layers.0.self_attn.q_proj" has rank 2×2'],
    ['weights that do not fit the base', adapterConfig(), adapterWeights(4, 16), 'implies a [16, 8] weight but accounts/acme/models/base has [8, 8]'],
  ])('refuses %s, leaving the add-on UPLOADING with a status', async (_what, adapterConfigBytes, weights, message) => {
    await createAddon();
    await upload(addon, { 'adapter_config.json': adapterConfigBytes, 'adapter_model.safetensors': weights });
    const error = await refusal(files.validateUpload(ctx, addon));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(message);
    expect(await models.get(ctx, addon)).toMatchObject({ state: 'UPLOADING', status: { code: 'INVALID_ARGUMENT', message: error.message } });
  });

  it('an add-on of a model that is not a base model is refused', async () => {
    await models.create(ctx, 'acme', { kind: 'CUSTOM_MODEL' }, 'custom');
    await createAddon({ baseModel: 'accounts/acme/models/custom' });
    await upload(addon, { 'adapter_config.json': adapterConfig(), 'adapter_model.safetensors': adapterWeights() });
    expect((await refusal(files.validateUpload(ctx, addon))).message).toContain('not a HUB_BASE_MODEL');
  });
});
