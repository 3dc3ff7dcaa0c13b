import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin } from '../kernel/plugin.js';
import type { JsonObject } from '../contracts/json.js';
import type { ModelFileSource } from '../ports/model-files.js';
import { modelFileSourcesToken } from '../services/tokens.js';
import { memoryStorage } from '../testing/index.js';
import { memoryModelFileSource } from '../testing/model-file-source.js';
import { adminOf, baseModelBody, startServingGateway, waitFor, type ServingTestGateway } from '../testing/serving-test-kit.js';
import { testRuntime } from '../testing/test-runtime.js';

const account = 'acme';
const ctx = adminOf(account);
const model = (id: string) => `accounts/${account}/models/${id}`;
const deploymentName = (id: string) => `accounts/${account}/deployments/${id}`;
const adapterFiles = (byte: number) => ({ 'adapter_config.json': '{"r":8,"target_modules":["q_proj"]}', 'adapter_model.safetensors': new Uint8Array(4096).fill(byte) });

let g: ServingTestGateway | undefined;
afterEach(async () => {
  await g?.stop();
  g = undefined;
});

/** A serving gateway whose models' uploaded files are the given in-memory sources. */
async function start(sources: Record<string, ModelFileSource>): Promise<ServingTestGateway> {
  const files = definePlugin({
    id: 'test-model-files',
    register: (binder) => binder.bindValue(modelFileSourcesToken, { sourceOf: async (_ctx, name) => sources[name] }, { override: true }),
  });
  g = await startServingGateway({ runtime: (p) => testRuntime({ provisioner: p }), storage: memoryStorage(), plugins: [files] });
  await g.tg.services.models.create(ctx, account, baseModelBody(), 'base');
  return g;
}

async function addon(s: ServingTestGateway, id: string): Promise<void> {
  await s.tg.services.models.create(ctx, account, { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: model('base'), r: 8, targetModules: ['q_proj'] } }, id);
}

async function deployReady(s: ServingTestGateway, id: string, body: JsonObject): Promise<void> {
  await s.tg.services.deployments.create(ctx, account, { baseModel: model('base'), ...body }, { deploymentId: id });
  await waitFor(() => s.tg.services.deployments.get(ctx, deploymentName(id)), (d) => d.state === 'READY');
}

async function chat(s: ServingTestGateway, target: string): Promise<string> {
  const resolved = await s.directory.resolve(ctx, target);
  const lease = await s.directory.acquire(ctx, resolved);
  try {
    const response = await fetch(`${lease.endpoint}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: lease.servedModelId, messages: [{ role: 'user', content: 'Describe the harbor.' }] }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  } finally {
    lease.release();
  }
}

const recordState = (s: ServingTestGateway, id: string) => s.tg.services.deployedModels.get(ctx, `accounts/${account}/deployedModels/${id}`);

describe('uploaded base weights on replicas', () => {
  it('each replica reads and checks the files; a corrupt file fails the deployment naming the file', async () => {
    const good = memoryModelFileSource(model('base'), { 'config.json': '{}', 'model.safetensors': new Uint8Array(10_000).fill(1) });
    const bad = memoryModelFileSource(model('broken'), { 'config.json': '{}', 'model.safetensors': new Uint8Array(10_000).fill(1) }, {
      recorded: { 'model.safetensors': { sha256: 'b'.repeat(64) } },
    });
    const s = await start({ [model('base')]: good, [model('broken')]: bad });
    await deployReady(s, 'two', { minReplicaCount: 2, maxReplicaCount: 2 });
    expect(good.reads).toBe(4);
    await s.tg.services.models.create(ctx, account, baseModelBody(), 'broken');
    await s.tg.services.deployments.create(ctx, account, { baseModel: model('broken') }, { deploymentId: 'broken' });
    const failed = await waitFor(() => s.tg.services.deployments.get(ctx, deploymentName('broken')), (d) => d.state === 'FAILED', 5000);
    expect(failed.status?.message).toMatch(/last failure: cannot load the weights: model file model\.safetensors of accounts\/acme\/models\/broken does not match its recorded SHA-256/);
  });
});

describe('LoRA add-ons on a running deployment', () => {
  it('loads each deployed add-on on every replica (DEPLOYING → DEPLOYED), answers differently per add-on, and unloads on undeploy', async () => {
    const s = await start({ [model('one')]: memoryModelFileSource(model('one'), adapterFiles(1)), [model('two')]: memoryModelFileSource(model('two'), adapterFiles(2)) });
    await addon(s, 'one');
    await addon(s, 'two');
    await deployReady(s, 'd', { enableAddons: true, minReplicaCount: 2, maxReplicaCount: 2 });
    const replicas = s.reconciler.replicasOf(deploymentName('d'));
    expect(replicas).toHaveLength(2);
    const base = await chat(s, model('base'));

    const created = await s.tg.services.deployedModels.create(ctx, account, { model: model('one'), deployment: deploymentName('d') }, { deployedModelId: 'one-on-d' });
    expect(created.state).toBe('DEPLOYING');
    await waitFor(() => recordState(s, 'one-on-d'), (r) => r.state === 'DEPLOYED');
    for (const replica of replicas) expect((await s.reconciler.addons.counts(replica.replicaId))?.loaded).toEqual([model('one')]);
    await s.tg.services.deployedModels.create(ctx, account, { model: model('two'), deployment: deploymentName('d') }, { deployedModelId: 'two-on-d' });
    await waitFor(() => recordState(s, 'two-on-d'), (r) => r.state === 'DEPLOYED');

    const one = await chat(s, model('one'));
    const two = await chat(s, model('two'));
    expect(new Set([base, one, two]).size).toBe(3);
    expect(await chat(s, model('one'))).toBe(one);

    await s.tg.services.deployedModels.delete(ctx, `accounts/${account}/deployedModels/one-on-d`);
    for (const replica of replicas) {
      const engine = s.provisioner.engineOf(replica.replicaId)!;
      await waitFor(() => engine.adapters().map((a) => a.name), (names) => names.length === 1 && names[0] === model('two'));
      expect((await s.reconciler.addons.counts(replica.replicaId))?.loaded).toEqual([model('two')]);
    }
    await expect(s.directory.resolve(ctx, model('one'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await chat(s, model('two'))).toBe(two);
  });

  it('keeps at most numPeftDeviceCached add-ons per replica: the least recently used is evicted and reloaded on demand', async () => {
    const s = await start({ [model('one')]: memoryModelFileSource(model('one'), adapterFiles(1)), [model('two')]: memoryModelFileSource(model('two'), adapterFiles(2)) });
    await addon(s, 'one');
    await addon(s, 'two');
    await deployReady(s, 'd', { enableAddons: true, numPeftDeviceCached: 1 });
    const [replica] = s.reconciler.replicasOf(deploymentName('d'));
    for (const id of ['one', 'two']) {
      await s.tg.services.deployedModels.create(ctx, account, { model: model(id), deployment: deploymentName('d') }, { deployedModelId: `${id}-on-d` });
      await waitFor(() => recordState(s, `${id}-on-d`), (r) => r.state === 'DEPLOYED');
    }
    const engine = s.provisioner.engineOf(replica!.replicaId)!;
    expect(engine.adapters().map((a) => a.name)).toEqual([model('two')]);
    const loadsBefore = engine.stats().adapterLoads;
    // Alternating requests: each one evicts the other add-on and reloads its own, and every one is answered.
    const answers: string[] = [];
    for (const id of ['one', 'two', 'one', 'two']) answers.push(await chat(s, model(id)));
    expect(answers[0]).toBe(answers[2]);
    expect(answers[1]).toBe(answers[3]);
    expect(answers[0]).not.toBe(answers[1]);
    expect(engine.stats().adapterLoads - loadsBefore).toBe(4);
    expect(engine.adapters()).toHaveLength(1);
    // Concurrent requests for both add-ons with one slot: all answered (each waits for the slot), none failed.
    const concurrent = await Promise.all(['one', 'two', 'one', 'two', 'one', 'two'].map((id) => chat(s, model(id))));
    expect(concurrent).toEqual([answers[0], answers[1], answers[0], answers[1], answers[0], answers[1]]);
    expect(engine.adapters()).toHaveLength(1);
  });

  it('leaves an add-on whose files are corrupt DEPLOYING with a status naming the file, and refuses requests for it', async () => {
    const corrupt = memoryModelFileSource(model('bad'), adapterFiles(3), { recorded: { 'adapter_model.safetensors': { sizeBytes: 1 } } });
    const s = await start({ [model('bad')]: corrupt });
    await addon(s, 'bad');
    await deployReady(s, 'd', { enableAddons: true });
    await s.tg.services.deployedModels.create(ctx, account, { model: model('bad'), deployment: deploymentName('d') }, { deployedModelId: 'bad-on-d' });
    const record = await waitFor(() => recordState(s, 'bad-on-d'), (r) => r.status !== undefined);
    expect(record.state).toBe('DEPLOYING');
    expect(record.status).toEqual({
      code: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/model file adapter_model\.safetensors of accounts\/acme\/models\/bad has more than the 1 bytes recorded/),
    });
    const target = await s.directory.resolve(ctx, model('bad'));
    await expect(s.directory.acquire(ctx, target)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(s.load.outstanding(s.reconciler.replicasOf(deploymentName('d'))[0]!.replicaId)).toBe(0);
  });
});
