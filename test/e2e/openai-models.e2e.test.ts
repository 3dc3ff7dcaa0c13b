import OpenAI, { NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadmeGateway, type ReadmeGateway } from './readme-gateway.js';

/**
 * `GET /inference/v1/models/{id}` with the official `openai` client against a gateway assembled as `npm start`
 * assembles it: every id `models.list()` returns (model names with slashes, and `model#deployment`) is
 * answered by `models.retrieve(id)` (which percent-encodes `/` and `#`), and by a GET with the slashes raw.
 */
let g: ReadmeGateway;
let client: OpenAI;
const key = 'dev-secret-key';
const account = 'my-account';
const model = `accounts/${account}/models/llama-3-8b`;

async function control(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${g.url}/v1/accounts/${account}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function untilReady(deployment: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if ((await control('GET', `/deployments/${deployment}?readMask=state`)).state === 'READY') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`deployment ${deployment} did not become READY`);
}

beforeAll(async () => {
  g = await startReadmeGateway('openai-models');
  client = new OpenAI({ apiKey: key, baseURL: `${g.url}/inference/v1`, maxRetries: 0 });
  await control('POST', '/models', {
    modelId: 'llama-3-8b',
    model: { kind: 'HUB_BASE_MODEL', baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] } },
  });
  await control('POST', '/deployments?deploymentId=a100', { baseModel: model });
  await control('POST', '/deployments?deploymentId=h100', { baseModel: model, acceleratorType: 'GPUX_H100_80GB' });
  await untilReady('a100');
  await untilReady('h100');
}, 60_000);

afterAll(async () => {
  await g?.close();
});

describe('openai client: models.retrieve for every id models.list returns', () => {
  it('retrieves each listed id, percent-encoded by the client and with raw slashes', async () => {
    const listed = [];
    for await (const entry of client.models.list()) listed.push(entry);
    expect(listed.map((entry) => entry.id).sort()).toEqual([model, `${model}#accounts/${account}/deployments/a100`, `${model}#accounts/${account}/deployments/h100`]);
    for (const entry of listed) {
      expect(await client.models.retrieve(entry.id)).toEqual(entry);
      if (entry.id.includes('#')) continue; // a raw `#` starts the URL's fragment: such ids only travel encoded
      const raw = await fetch(`${g.url}/inference/v1/models/${entry.id}`, { headers: { authorization: `Bearer ${key}` } });
      expect(raw.status).toBe(200);
      expect(await raw.json()).toEqual(entry);
    }
  });

  it('answers 404 in the OpenAI format for an id that is not listed', async () => {
    const missing = client.models.retrieve(`accounts/${account}/models/nope`);
    await expect(missing).rejects.toBeInstanceOf(NotFoundError);
    await expect(missing).rejects.toMatchObject({ status: 404, code: 'model_not_found', param: 'model', type: 'not_found_error' });
    const otherAccount = await fetch(`${g.url}/inference/v1/models/accounts/other/models/llama-3-8b`, { headers: { authorization: `Bearer ${key}` } });
    expect(otherAccount.status).toBe(404);
    const unauthenticated = await fetch(`${g.url}/inference/v1/models/${encodeURIComponent(model)}`);
    expect(unauthenticated.status).toBe(401);
  });
});
