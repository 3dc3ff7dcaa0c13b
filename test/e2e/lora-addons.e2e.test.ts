import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servingOptions, simulatedProvisioner, deploymentReconcilerToken, type SimulatedProvisioner } from '@berth/core';
import { buildSafetensors } from '@berth/core/testing';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { account, adminKey, startHarness, type Harness } from './harness.js';
import { adapterConfig, baseCheckpointModel, checkpoint, checkpointConfig, createModel, uploadAll, validate } from './model-upload-scenario.js';

/**
 * Issue 13's serving walk-through over HTTP on the embedded gateway (simulated GPUX replicas): a base
 * checkpoint and two LoRA add-ons generated here and uploaded through the upload flow, the base deployed
 * with add-ons enabled, chat; both add-ons
 * deployed onto the running deployment (DEPLOYING → DEPLOYED), each changing the answers; one undeployed;
 * eviction and reload with numPeftDeviceCached: 1, counted on the replica's engine.
 */
const v1 = `/v1/accounts/${account}`;
const model = (id: string) => `accounts/${account}/models/${id}`;
let h: Harness;
let provisioner: SimulatedProvisioner;

const baseFiles = { 'config.json': checkpointConfig, 'model.safetensors': checkpoint };
/** Two add-ons with the same config and shapes, told apart only by their weights' bytes. */
const adapterFiles = (fill: number) => ({
  'adapter_config.json': adapterConfig,
  'adapter_model.safetensors': buildSafetensors(
    ['q_proj', 'v_proj'].flatMap((module) => [
      { name: `base_model.model.model.layers.0.self_attn.${module}.lora_A.weight`, dtype: 'BF16', shape: [4, 16] },
      { name: `base_model.model.model.layers.0.self_attn.${module}.lora_B.weight`, dtype: 'BF16', shape: [16, 4] },
    ]),
    { fill: () => fill },
  ),
});

/** Uploads a model's files through the upload flow over HTTP (signed PUTs, then :validateUpload). */
async function upload(id: string, files: Record<string, Uint8Array>): Promise<void> {
  await uploadAll(h, id, files);
  const validated = await validate(h, id);
  expect(validated.status, JSON.stringify(validated.body)).toBe(200);
  expect((await get(`${v1}/models/${id}`)).state).toBe('READY');
}

async function create(path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await h.call('POST', path, { body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const get = async (path: string) => (await h.call('GET', path)).body;

async function chat(target: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${h.url}/inference/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: target, messages: [{ role: 'user', content: 'What does the harbor look like tonight?' }], max_tokens: 24, seed: 3 }),
  });
  const body = (await response.json()) as { choices?: { message: { content: string } }[] };
  return { status: response.status, text: body.choices?.[0]?.message.content ?? '' };
}

async function deploy(id: string, body: Record<string, unknown>): Promise<void> {
  await create(`${v1}/deployments?deploymentId=${id}`, { baseModel: model('base'), acceleratorType: 'GPUX_H100_80GB', ...body });
  await until(() => get(`${v1}/deployments/${id}`), (d) => d.state === 'READY', `deployment ${id}`);
}

async function deployAddon(addon: string, deployment: string): Promise<void> {
  const record = await create(`${v1}/deployedModels?deployedModelId=${addon}-on-${deployment}`, { model: model(addon), deployment: `${v1.slice(4)}/deployments/${deployment}` });
  expect(record.state).toBe('DEPLOYING');
  await until(() => get(`${v1}/deployedModels/${addon}-on-${deployment}`), (r) => r.state === 'DEPLOYED', `add-on ${addon} on ${deployment}`);
}

beforeAll(async () => {
  provisioner = simulatedProvisioner({ delays: { schedulingMs: 10, downloadingMs: 20, initializingMs: 10 } });
  h = await startHarness({
    plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), gpuxRuntime({ provisioner }), servingOptions({ pollIntervalMs: 100 })],
  });
  await createModel(h, 'base', baseCheckpointModel);
  await upload('base', baseFiles);
  for (const [id, fill] of [['sql', 2], ['poet', 3]] as const) {
    await createModel(h, id, { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: model('base'), r: 4, targetModules: ['q_proj', 'v_proj'] } });
    await upload(id, adapterFiles(fill));
  }
});
afterAll(async () => {
  await h.close();
  await provisioner.close();
});

describe('LoRA add-ons on a running deployment over HTTP', () => {
  let base: string;
  let sql: string;
  let poet: string;

  it('deploys the uploaded base model and chats', async () => {
    await deploy('main', { enableAddons: true, minReplicaCount: 2, maxReplicaCount: 2 });
    const answer = await chat(model('base'));
    expect(answer.status).toBe(200);
    base = answer.text;
    expect(base.length).toBeGreaterThan(0);
  });

  it('deploys two add-ons onto it without a restart, each changing the answers', async () => {
    const replicasBefore = h.gateway.resolve(deploymentReconcilerToken).replicasOf(`accounts/${account}/deployments/main`).map((r) => r.replicaId).sort();
    await deployAddon('sql', 'main');
    await deployAddon('poet', 'main');
    const replicas = h.gateway.resolve(deploymentReconcilerToken).replicasOf(`accounts/${account}/deployments/main`).map((r) => r.replicaId).sort();
    expect(replicas).toEqual(replicasBefore);
    for (const replica of replicas) expect(provisioner.engineOf(replica)?.adapters().map((a) => a.name).sort()).toEqual([model('poet'), model('sql')]);
    sql = (await chat(model('sql'))).text;
    poet = (await chat(model('poet'))).text;
    expect(new Set([base, sql, poet]).size).toBe(3);
    expect((await chat(model('sql'))).text).toBe(sql);
    const got = await get(`${v1}/models/sql`);
    expect(got.deployedModelRefs).toEqual([expect.objectContaining({ deployment: `accounts/${account}/deployments/main`, state: 'DEPLOYED' })]);
  });

  it('undeploys one: requests for it are refused, it is unloaded from every replica, the other still answers', async () => {
    expect((await h.call('DELETE', `${v1}/deployedModels/sql-on-main`)).status).toBe(200);
    const refused = await chat(model('sql'));
    expect(refused.status).toBe(404);
    for (const replica of h.gateway.resolve(deploymentReconcilerToken).replicasOf(`accounts/${account}/deployments/main`)) {
      await until(async () => provisioner.engineOf(replica.replicaId)?.adapters().map((a) => a.name), (names) => names?.length === 1 && names[0] === model('poet'), 'unload');
    }
    expect((await chat(model('poet'))).text).toBe(poet);
  });

  it('with numPeftDeviceCached: 1 both add-ons still answer, evicting and reloading each other', async () => {
    await deploy('one-slot', { enableAddons: true, numPeftDeviceCached: 1 });
    await deployAddon('sql', 'one-slot');
    await deployAddon('poet', 'one-slot');
    const [replica] = h.gateway.resolve(deploymentReconcilerToken).replicasOf(`accounts/${account}/deployments/one-slot`);
    const engine = provisioner.engineOf(replica!.replicaId)!;
    expect(engine.adapters()).toHaveLength(1);
    const loads = engine.stats().adapterLoads;
    const answers = [];
    for (const id of ['sql', 'poet', 'sql', 'poet']) answers.push(await chat(`${model(id)}#one-slot`));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    // The same adapter bytes answer alike on either deployment.
    expect(answers.map((a) => a.text)).toEqual([sql, poet, sql, poet]);
    expect(engine.stats().adapterLoads - loads).toBe(4);
    expect(engine.adapters()).toHaveLength(1);
  });
});
