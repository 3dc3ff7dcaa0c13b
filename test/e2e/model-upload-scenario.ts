import { expect } from 'vitest';
import { modelFileServiceToken, systemContext } from '@berth/core';
import { buildSafetensors } from '@berth/core/testing';
import { account, type ApiResponse, type Harness } from './harness.js';
import { expectRangeRequests } from './range-requests.js';

/**
 * The model upload flow over HTTP, shared by the memory e2e and the PostgreSQL suite: a checkpoint and a
 * LoRA add-on generated here, announced, PUT to their signed URLs, validated to READY and downloaded
 * back byte for byte; then each kind of bad input answered 400 naming the file, leaving nothing READY.
 */
const v1 = `/v1/accounts/${account}`;
const encoder = new TextEncoder();

export const checkpoint = buildSafetensors([
  { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [64, 16] },
  { name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'BF16', shape: [16, 16] },
  { name: 'model.layers.0.self_attn.v_proj.weight', dtype: 'BF16', shape: [16, 16] },
  { name: 'model.norm.weight', dtype: 'F32', shape: [16] },
]);
export const checkpointConfig = encoder.encode(JSON.stringify({ model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 16, vocab_size: 64 }));
export const adapterConfig = encoder.encode(JSON.stringify({ peft_type: 'LORA', r: 4, target_modules: ['q_proj', 'v_proj'], lora_alpha: 8 }));
export const adapterWeights = buildSafetensors(['q_proj', 'v_proj'].flatMap((module) => [
  { name: `base_model.model.model.layers.0.self_attn.${module}.lora_A.weight`, dtype: 'BF16', shape: [4, 16] },
  { name: `base_model.model.model.layers.0.self_attn.${module}.lora_B.weight`, dtype: 'BF16', shape: [16, 4] },
]));

type Urls = ApiResponse<{ filenameToSignedUrls: Record<string, string> }>;

export async function createModel(h: Harness, id: string, model: Record<string, unknown>): Promise<void> {
  const created = await h.call('POST', `${v1}/models`, { body: { modelId: id, model } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
}

export const baseCheckpointModel = { kind: 'HUB_BASE_MODEL', baseModelDetails: { checkpointFormat: 'HUB', hubFiles: ['config.json', 'model.safetensors'] } };

export async function uploadUrls(h: Harness, id: string, files: Record<string, number>): Promise<Record<string, string>> {
  const answer: Urls = await h.call('POST', `${v1}/models/${id}:getUploadEndpoint`, {
    body: { filenameToSize: Object.fromEntries(Object.entries(files).map(([name, size]) => [name, String(size)])) },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.filenameToSignedUrls;
}

/** PUTs bytes to a signed URL (no bearer key): status and body. */
export async function put(url: string, bytes: Uint8Array, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream', ...headers } });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

export async function uploadAll(h: Harness, id: string, files: Record<string, Uint8Array>): Promise<void> {
  const urls = await uploadUrls(h, id, Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, bytes.byteLength])));
  for (const [name, bytes] of Object.entries(files)) {
    const answer = await put(urls[name]!, bytes);
    expect(answer, name).toEqual({ status: 200, body: {} });
  }
}

export async function validate(h: Harness, id: string): Promise<ApiResponse> {
  return h.call('GET', `${v1}/models/${id}:validateUpload`);
}

/** Every file of a READY model downloaded through its signed URL equals what was uploaded. */
export async function expectDownloads(h: Harness, id: string, files: Record<string, Uint8Array>): Promise<void> {
  const answer: Urls = await h.call('GET', `${v1}/models/${id}:getDownloadEndpoint`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(Object.keys(answer.body.filenameToSignedUrls).sort()).toEqual(Object.keys(files).sort());
  for (const [name, bytes] of Object.entries(files)) {
    const response = await fetch(answer.body.filenameToSignedUrls[name]!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(bytes.byteLength));
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);
  }
}

/** A checkpoint and an add-on on it, each through the whole flow. */
export async function runHappyPath(h: Harness, prefix: string): Promise<void> {
  const base = `${prefix}-base`;
  await createModel(h, base, baseCheckpointModel);
  // Created for upload (a HUB checkpoint stating no parameterCount): UPLOADING at once, not deployable.
  expect((await h.call('GET', `${v1}/models/${base}`)).body.state).toBe('UPLOADING');
  const early = await h.call('POST', `${v1}/deployments?deploymentId=${prefix}-early`, { body: { baseModel: `accounts/${account}/models/${base}` } });
  expect(early.status, JSON.stringify(early.body)).toBe(400);
  expect(early.body).toMatchObject({ code: 9, message: expect.stringContaining('is UPLOADING: upload and validate its files') });
  const files = { 'config.json': checkpointConfig, 'model.safetensors': checkpoint, 'tokenizer/tokenizer_config.json': encoder.encode('{}') };
  await uploadAll(h, base, files);
  expect((await h.call('GET', `${v1}/models/${base}`)).body.state).toBe('UPLOADING');
  const validated = await validate(h, base);
  expect(validated, JSON.stringify(validated.body)).toMatchObject({ status: 200, body: {} });
  const model = await h.call('GET', `${v1}/models/${base}`);
  expect(model.body).toMatchObject({ state: 'READY', baseModelDetails: { parameterCount: String(1024 + 256 + 256 + 16), defaultPrecision: 'BF16', modelType: 'llama' } });
  expect(model.body.status).toBeUndefined();
  await expectDownloads(h, base, files);
  const download: Urls = await h.call('GET', `${v1}/models/${base}:getDownloadEndpoint`);
  await expectRangeRequests(download.body.filenameToSignedUrls['model.safetensors']!, checkpoint);

  const addon = `${prefix}-addon`;
  await createModel(h, addon, { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: `accounts/${account}/models/${base}`, r: 4, targetModules: ['v_proj', 'q_proj'] } });
  expect((await h.call('GET', `${v1}/models/${addon}`)).body.state).toBe('UPLOADING');
  await uploadAll(h, addon, { 'adapter_config.json': adapterConfig, 'adapter_model.safetensors': adapterWeights });
  expect((await validate(h, addon)).status).toBe(200);
  expect((await h.call('GET', `${v1}/models/${addon}`)).body).toMatchObject({ state: 'READY', peftDetails: { baseModelType: 'llama' } });
  await expectDownloads(h, addon, { 'adapter_config.json': adapterConfig, 'adapter_model.safetensors': adapterWeights });
}

/** Expects a 400 control-plane error whose message starts by naming the file. */
export function expectFileRefusal(answer: { status: number; body: Record<string, unknown> }, fileName: string, why: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.code).toBe(3);
  expect(String(answer.body.message)).toContain(`file ${JSON.stringify(fileName)}`);
  expect(String(answer.body.message)).toContain(why);
}

/** Each kind of bad input: 400 naming the file, nothing stored of it, the model never READY. */
export async function runBadInputs(h: Harness, prefix: string): Promise<void> {
  const id = `${prefix}-bad`;
  await createModel(h, id, baseCheckpointModel);
  const stateOf = async () => (await h.call('GET', `${v1}/models/${id}`)).body;

  // A path-traversal name, an absolute one, an empty segment: refused at announcement.
  for (const name of ['../../etc/passwd', '/abs.json', 'a//b.json']) {
    const answer = await h.call('POST', `${v1}/models/${id}:getUploadEndpoint`, { body: { filenameToSize: { [name]: '2' } } });
    expectFileRefusal(answer, name, 'file name');
  }
  const urls = await uploadUrls(h, id, { 'config.json': checkpointConfig.byteLength, 'model.safetensors': checkpoint.byteLength });

  // A file not announced: its URL cannot be forged (403), and an announced URL for another name is refused.
  const forged = urls['config.json']!.replace('/files/config.json', '/files/extra.json');
  expect((await put(forged, checkpointConfig)).status).toBe(403);

  // A wrong size (declared), a longer body, a cut body (fewer bytes than Content-Length claims is a client
  // error fetch cannot send; a short body with a matching length is the truncated upload).
  expectFileRefusal(await put(urls['model.safetensors']!, checkpoint.subarray(0, checkpoint.byteLength - 10)), 'model.safetensors', 'carries');
  expectFileRefusal(await put(urls['model.safetensors']!, new Uint8Array([...checkpoint, 0, 0])), 'model.safetensors', 'carries');
  const chunked = await fetch(urls['model.safetensors']!, {
    method: 'PUT', duplex: 'half', headers: { 'content-type': 'application/octet-stream' },
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(checkpoint.subarray(0, 100));
        controller.close();
      },
    }),
  } as RequestInit);
  expectFileRefusal({ status: chunked.status, body: (await chunked.json()) as Record<string, unknown> }, 'model.safetensors', 'ended after 100');
  const tooLong = await fetch(urls['model.safetensors']!, {
    method: 'PUT', duplex: 'half', headers: { 'content-type': 'application/octet-stream' },
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(checkpoint);
        controller.enqueue(new Uint8Array(64));
        controller.close();
      },
    }),
  } as RequestInit);
  expectFileRefusal({ status: tooLong.status, body: (await tooLong.json()) as Record<string, unknown> }, 'model.safetensors', 'more than the');

  // A corrupt safetensors header: a header length past the end of the file.
  const corrupt = checkpoint.slice();
  new DataView(corrupt.buffer).setBigUint64(0, BigInt(corrupt.byteLength), true);
  expectFileRefusal(await put(urls['model.safetensors']!, corrupt), 'model.safetensors', 'not a valid safetensors file');
  // Shape × dtype disagreeing with the offsets, same length.
  const lying = checkpoint.slice();
  const at = Buffer.from(lying).indexOf('[64,16]');
  lying.set(encoder.encode('[64,17]'), at);
  expectFileRefusal(await put(urls['model.safetensors']!, lying), 'model.safetensors', 'needs');

  // Nothing partial was kept: validation names the missing weights and the model stays UPLOADING with a status.
  expect((await put(urls['config.json']!, checkpointConfig)).status).toBe(200);
  const missing = await validate(h, id);
  expect(missing.status).toBe(400);
  expect(missing.body).toMatchObject({ code: 9 });
  expect(String(missing.body.message)).toContain('file "model.safetensors": was announced but has not been uploaded');
  expect(await stateOf()).toMatchObject({ state: 'UPLOADING', status: { code: 'FAILED_PRECONDITION' } });
  expect((await h.call('GET', `${v1}/models/${id}:getDownloadEndpoint`)).status).toBe(400);

  // A bad config.json: validation answers 400 naming it and records it in status.
  const badConfig = `${prefix}-badconfig`;
  await createModel(h, badConfig, baseCheckpointModel);
  await uploadAll(h, badConfig, { 'config.json': encoder.encode('{"architectures": []}'), 'model.safetensors': checkpoint });
  const refused = await validate(h, badConfig);
  expectFileRefusal(refused, 'config.json', 'model_type');
  expect((await h.call('GET', `${v1}/models/${badConfig}`)).body).toMatchObject({ state: 'UPLOADING', status: { code: 'INVALID_ARGUMENT', message: refused.body.message } });

  // Caps: a size over the per-file cap is refused at announcement.
  const huge = await h.call('POST', `${v1}/models/${id}:getUploadEndpoint`, { body: { filenameToSize: { 'shard-2.safetensors': String(10 ** 15) } } });
  expectFileRefusal(huge, 'shard-2.safetensors', 'may hold');
}

/**
 * Concurrent announcements of different files of one model: every one is kept (each file's PUT is taken;
 * a lost one would answer "was not announced"). Half race over HTTP, half through the gateway's service
 * directly, so the calls overlap inside the storage and not only at the HTTP server.
 */
export async function runAnnouncementRace(h: Harness, prefix: string, racers = 8): Promise<void> {
  const id = `${prefix}-race`;
  await createModel(h, id, baseCheckpointModel);
  const files = h.gateway.resolve(modelFileServiceToken);
  const ctx = systemContext('announcement-race');
  const names = Array.from({ length: racers }, (_, i) => `part-${i}.json`);
  const answers = await Promise.all(names.map(async (name, i) => {
    if (i % 2 === 0) return uploadUrls(h, id, { [name]: 2 });
    const { filenameToSignedUrls } = await files.getUploadEndpoint(ctx, `accounts/${account}/models/${id}`, { filenameToSize: { [name]: '2' } });
    return Object.fromEntries(Object.entries(filenameToSignedUrls).map(([file, path]) => [file, `${h.url}${path}`]));
  }));
  for (const [i, name] of names.entries()) {
    expect(await put(answers[i]![name]!, encoder.encode('{}')), name).toEqual({ status: 200, body: {} });
  }
}
