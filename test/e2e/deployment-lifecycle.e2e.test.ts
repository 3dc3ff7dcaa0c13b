import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { gpuyRuntime } from '@berth/plugin-runtime-gpuy';
import { deployedModelSchema, deploymentSchema, modelSchema, servingOptions } from '@berth/core';
import { account, adminKey, baseModelBody, startHarness, undeclaredFields, type Harness } from './harness.js';

/**
 * The walk-through over HTTP: a model and a deployment on GPUX_H100_80GB (simulated replicas,
 * reference engines on loopback), CREATING → READY, chat plain and streaming through the official
 * client, scale, delete (in use, soft, hard).
 */
let h: Harness;
const v1 = `/v1/accounts/${account}`;
const modelName = `accounts/${account}/models/llama-8b`;

beforeAll(async () => {
  h = await startHarness({
    plugins: [
      memoryStorage(),
      apiKeyAuth({ cacheTtlMs: 0 }),
      gpuxRuntime({ provisioner: { kind: 'simulated', delays: { schedulingMs: 20, downloadingMs: 40, initializingMs: 20 } } }),
      gpuyRuntime(),
      servingOptions({ pollIntervalMs: 100 }),
    ],
  });
  const created = await h.call('POST', `${v1}/models`, { body: { modelId: 'llama-8b', model: baseModelBody() } });
  expect(created.status).toBe(200);
});
afterAll(async () => h.close());

async function waitForState(name: string, wanted: string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await h.call('GET', `${v1}/deployments/${name}`);
    if (r.body.state === wanted) return r.body;
    if (Date.now() > until) throw new Error(`deployment ${name} stayed ${String(r.body.state)}, wanted ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('deployment lifecycle over HTTP (simulated GPUX_H100_80GB)', () => {
  it('refuses hardware that cannot serve the precision, naming both', async () => {
    const r = await h.call('POST', `${v1}/deployments?deploymentId=fp4`, { body: { baseModel: modelName, acceleratorType: 'GPUX_H100_80GB', precision: 'FP4' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('FP4');
    expect(r.body.message).toContain('GPUX_H100_80GB');
  });

  it('creates, becomes READY, serves chat plain and streaming, scales, and deletes', async () => {
    const created = await h.call('POST', `${v1}/deployments?deploymentId=chat`, {
      body: { baseModel: modelName, acceleratorType: 'GPUX_H100_80GB', minReplicaCount: 1, maxReplicaCount: 2 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.state).toBe('CREATING');
    const ready = await waitForState('chat', 'READY');
    expect(ready.replicaCount).toBeGreaterThanOrEqual(1);
    expect(ready.replicaStats).toMatchObject({ readyReplicaCount: 1 });
    // What the reconciler wrote is all declared: nothing internal reaches the client.
    expect(undeclaredFields(ready, deploymentSchema)).toEqual([]);

    const model = await h.call<{ deployedModelRefs?: Array<{ deployment: string; default: boolean }> }>('GET', `${v1}/models/llama-8b`);
    expect(model.body.deployedModelRefs?.[0]).toMatchObject({ deployment: `accounts/${account}/deployments/chat`, default: true });
    expect(undeclaredFields(model.body, modelSchema)).toEqual([]);
    const deployedModels = await h.call<{ deployedModels: unknown[] }>('GET', `${v1}/deployedModels`);
    expect(deployedModels.body.deployedModels.length).toBeGreaterThan(0);
    expect(undeclaredFields(deployedModels.body.deployedModels, { items: deployedModelSchema })).toEqual([]);

    const client = new OpenAI({ apiKey: adminKey, baseURL: `${h.url}/inference/v1` });
    const plain = await client.chat.completions.create({ model: modelName, messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 16, seed: 7 });
    expect(plain.choices[0]?.message.content?.length).toBeGreaterThan(0);
    expect(plain.usage?.total_tokens).toBeGreaterThan(0);
    const again = await client.chat.completions.create({ model: modelName, messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 16, seed: 7 });
    expect(again.choices[0]?.message.content).toBe(plain.choices[0]?.message.content);

    const stream = await client.chat.completions.create({ model: `${modelName}#accounts/${account}/deployments/chat`, messages: [{ role: 'user', content: 'Count to five' }], max_tokens: 16, stream: true });
    let text = '';
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(chunks).toBeGreaterThan(2);
    expect(text.length).toBeGreaterThan(0);

    expect((await h.call('PATCH', `${v1}/deployments/chat:scale`, { body: { replicaCount: 2 } })).status).toBe(200);
    const until = Date.now() + 10_000;
    for (;;) {
      const r = await h.call('GET', `${v1}/deployments/chat`);
      if (r.body.replicaCount === 2) break;
      if (Date.now() > until) throw new Error(`replicaCount stayed ${String(r.body.replicaCount)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await h.call('PATCH', `${v1}/deployments/chat:scale`, { body: { replicaCount: 3 } })).status).toBe(400);

    const inUse = await h.call('DELETE', `${v1}/deployments/chat`);
    expect(inUse.status).toBe(400);
    expect(inUse.body.code).toBe(9);
    expect((await h.call('DELETE', `${v1}/deployments/chat?ignoreChecks=true`)).status).toBe(200);
    const deleted = await waitForState('chat', 'DELETED');
    expect(undeclaredFields(deleted, deploymentSchema)).toEqual([]);
    const listed = await h.call<{ deployments: unknown[] }>('GET', `${v1}/deployments`);
    expect(listed.body.deployments.find((d) => (d as { name: string }).name.endsWith('/chat'))).toBeUndefined();
    await expect(client.chat.completions.create({ model: `${modelName}#accounts/${account}/deployments/chat`, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: expect.any(Number) });
    expect((await h.call('DELETE', `${v1}/deployments/chat?hard=true`)).status).toBe(200);
    expect((await h.call('GET', `${v1}/deployments/chat`)).status).toBe(404);
  });

  it('an idle deployment deletes without ignoreChecks, and :undelete restores it', async () => {
    expect((await h.call('POST', `${v1}/deployments?deploymentId=idle`, { body: { baseModel: modelName, acceleratorType: 'GPUY_MI300X_192GB' } })).status).toBe(200);
    await waitForState('idle', 'READY');
    expect((await h.call('DELETE', `${v1}/deployments/idle`)).status).toBe(200);
    await waitForState('idle', 'DELETED');
    const restored = await h.call('POST', `${v1}/deployments/idle:undelete`, { body: {} });
    expect(restored.status).toBe(200);
    await waitForState('idle', 'READY');
  });

  it('holds a request to a deployment scaled to zero while a replica starts, then answers it', async () => {
    expect((await h.call('POST', `${v1}/deployments?deploymentId=cold`, { body: { baseModel: modelName, acceleratorType: 'GPUX_A100_80GB', minReplicaCount: 0, maxReplicaCount: 1 } })).status).toBe(200);
    await waitForState('cold', 'READY');
    expect((await h.call('PATCH', `${v1}/deployments/cold:scale`, { body: { replicaCount: 0 } })).status).toBe(200);
    const until = Date.now() + 10_000;
    for (;;) {
      const r = await h.call('GET', `${v1}/deployments/cold`);
      if (r.body.replicaCount === 0) break;
      if (Date.now() > until) throw new Error(`replicaCount stayed ${String(r.body.replicaCount)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const client = new OpenAI({ apiKey: adminKey, baseURL: `${h.url}/inference/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: `${modelName}#accounts/${account}/deployments/cold`, messages: [{ role: 'user', content: 'wake up' }], max_tokens: 4 });
    expect(answer.choices[0]?.message.content?.length).toBeGreaterThan(0);
    // It was at zero replicas when the request came: the request waited for a replica instead of failing.
    expect((await h.call('GET', `${v1}/deployments/cold`)).body.replicaCount).toBe(1);
  });
});
