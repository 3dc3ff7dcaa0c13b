import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';
import { runAnnouncementRace, runBadInputs, runHappyPath, uploadUrls, createModel, baseCheckpointModel, put, checkpoint } from './model-upload-scenario.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { maxModelFileBytes: 1024 * 1024, maxModelBytes: 2 * 1024 * 1024 } });
});
afterAll(async () => {
  await h.close();
});

describe('model files over HTTP (memory storage)', () => {
  it('uploads a checkpoint and an add-on, validates them to READY and downloads the same bytes', async () => {
    await runHappyPath(h, 'mem');
  });

  it('answers each bad input with a 400 naming the file and leaves nothing READY', async () => {
    await runBadInputs(h, 'mem');
  });

  it('keeps every one of concurrent announcements of one model', async () => {
    await runAnnouncementRace(h, 'mem');
  });

  it('documents the custom methods in the OpenAPI document, not the signed URLs', async () => {
    const doc = await h.call<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths['/v1/accounts/{account_id}/models/{model_id}:getUploadEndpoint'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.body.paths['/v1/accounts/{account_id}/models/{model_id}:validateUpload'] ?? {})).toEqual(['get']);
    expect(Object.keys(doc.body.paths['/v1/accounts/{account_id}/models/{model_id}:getDownloadEndpoint'] ?? {})).toEqual(['get']);
    expect(Object.keys(doc.body.paths).some((path) => path.includes('/files/'))).toBe(false);
  });

  it('a signed URL needs no bearer key but only works for its own model, file and method', async () => {
    await createModel(h, 'mem-sig', baseCheckpointModel);
    const urls = await uploadUrls(h, 'mem-sig', { 'model.safetensors': checkpoint.byteLength });
    const url = urls['model.safetensors']!;
    expect((await put(url.replace('/models/mem-sig/', '/models/mem-other/'), checkpoint)).status).toBe(403);
    expect((await put(url.replace('method=PUT', 'method=GET'), checkpoint)).status).toBe(400);
    expect((await fetch(url)).status).toBe(400);
    expect(await put(url, checkpoint)).toEqual({ status: 200, body: {} });
  });
});
