import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startReferenceEngine, type ReferenceEngine } from '../engine/reference-engine.js';
import { decodeReferenceLora, wordLogitBias } from '../engine/reference-lora.js';
import { referenceVocabulary } from '../engine/vocabulary.js';
import type { RequestContext } from '../contracts/request-context.js';
import { MemoryStorage, memoryStorage } from '../testing/index.js';
import { createTestGateway, ManualClock } from '../testing/test-gateway.js';
import { storageToken, trainerToken } from '../kernel/tokens.js';
import { checkpointFileKey, type TrainerCheckpoint, type TrainerHyperparameters, type TrainingGroup, type TrainStepInput } from '../ports/trainer.js';
import { createReferenceTrainer, referenceAcceleratorType } from './reference-trainer.js';
import { grpoStep, initialReferenceLora } from './grpo.js';
import type { Trainer } from '../ports/trainer.js';
import { randomIdGenerator } from '../ports/id-generator.js';
import { ResourceEnvironment } from '../resources/common/resource-environment.js';
import { GatewaySecrets } from '../resources/common/secrets.js';
import { ModelFileService } from '../resources/models/model-file-service.js';
import { ModelService } from '../resources/models/model-service.js';
import { baseModelBody, startServingGateway, waitFor } from '../testing/serving-test-kit.js';
import { testRuntime } from '../testing/test-runtime.js';
import type { Storage } from '../ports/storage.js';

const ctx: RequestContext = { requestId: 'r1' };
const job = 'accounts/acme/reinforcementFineTuningJobs/toy';
const baseModel = 'accounts/acme/models/base';
const hp: TrainerHyperparameters = { learningRate: 10, loraRank: 4, lossMethod: 'GRPO', temperature: 1 };

let storage: MemoryStorage;
let trainer: Trainer;
let engine: ReferenceEngine;
let root: string;

beforeAll(async () => {
  engine = await startReferenceEngine({ modelIds: ['base'], lora: { maxLoras: 2 } });
  root = await mkdtemp(join(tmpdir(), 'berth-trainer-'));
});
afterAll(async () => {
  await engine.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  storage = new MemoryStorage();
  trainer = createReferenceTrainer(storage.blobs);
});

/** The toy task's evaluator: 1 when the answer mentions a harbor, else 0. */
const reward = (text: string) => (/\bharbor\b/i.test(text) ? 1 : 0);
const prompts = ['Where do ships rest?', 'Tell me about the coast.', 'Describe the night.', 'What keeps boats safe?'];
const rolloutsPerPrompt = 8;

/** Writes a checkpoint's files to a directory and loads it on the engine as `name`. */
async function loadCheckpoint(checkpoint: TrainerCheckpoint, name: string): Promise<void> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (const file of checkpoint.files) {
    const stored = await storage.blobs.get(ctx, checkpointFileKey(checkpoint, file.path));
    await writeFile(join(dir, file.path), stored!.bytes);
  }
  const response = await fetch(`${engine.url}/v1/load_lora_adapter`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lora_name: name, lora_path: dir }),
  });
  expect(response.status, await response.text()).toBe(200);
}

async function unload(name: string): Promise<void> {
  await fetch(`${engine.url}/v1/unload_lora_adapter`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lora_name: name }) });
}

/** The rollouts of every prompt from the engine under `model`, scored. */
async function rollouts(model: string, seed: number): Promise<TrainingGroup[]> {
  return Promise.all(prompts.map(async (content, rowIndex) => {
    const messages = [{ role: 'user', content }];
    const response = await fetch(`${engine.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages, seed, n: rolloutsPerPrompt, temperature: hp.temperature }),
    });
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    return { rowIndex, messages, rollouts: body.choices.map((c) => ({ completion: c.message.content, reward: reward(c.message.content) })) };
  }));
}

const meanReward = (groups: readonly TrainingGroup[]) => {
  const all = groups.flatMap((g) => g.rollouts.map((r) => r.reward ?? 0));
  return all.reduce((s, x) => s + x, 0) / all.length;
};

describe('the reference trainer on a toy task (reward: the answer mentions "harbor")', () => {
  it('raises the mean reward over epochs, and the trained add-on answers differently from the base', async () => {
    const epochs = 8;
    const rewards: number[] = [];
    let from: TrainerCheckpoint | undefined;
    let model = 'base';
    for (let epoch = 0; epoch < epochs; epoch += 1) {
      const groups = await rollouts(model, epoch);
      rewards.push(meanReward(groups));
      const step = epoch + 1;
      const result = await trainer.step(ctx, { job, step, baseModel, groups, hyperparameters: hp, nodeCount: 1, ...(from ? { from } : {}) });
      expect(result.checkpoint.step).toBe(step);
      expect(result.metrics.meanReward).toBeCloseTo(rewards[epoch]!, 10);
      expect(result.acceleratorSeconds[referenceAcceleratorType]).toBeGreaterThanOrEqual(0);
      from = result.checkpoint;
      if (model !== 'base') await unload(model);
      model = `toy-step-${step}`;
      await loadCheckpoint(from, model);
    }
    const final = await rollouts(model, epochs);
    rewards.push(meanReward(final));
    // The base policy's reward, and a margin of three standard errors of its estimate over these rollouts.
    const base = rewards[0]!;
    const n = prompts.length * rolloutsPerPrompt;
    const margin = 3 * Math.sqrt(Math.max(base * (1 - base), 1 / n) / n);
    expect(rewards.at(-1)!, `rewards per epoch: ${rewards.map((r) => r.toFixed(3)).join(' ')}`).toBeGreaterThan(base + margin);
    // The learned word bias favours the rewarded word above every other word.
    const weightsFile = await storage.blobs.get(ctx, checkpointFileKey(from!, 'adapter_model.safetensors'));
    const bias = wordLogitBias(decodeReferenceLora(weightsFile!.bytes)!);
    const harbor = referenceVocabulary.indexOf('harbor');
    expect(Math.max(...bias.filter((_, v) => v !== harbor))).toBeLessThan(bias[harbor]!);
    // Same prompt and seed: the trained add-on's answers mention harbors more often than the base's.
    const baseAgain = await rollouts('base', epochs);
    expect(meanReward(final)).toBeGreaterThan(meanReward(baseAgain));
    expect(final.map((g) => g.rollouts[0]!.completion)).not.toEqual(baseAgain.map((g) => g.rollouts[0]!.completion));
    await unload(model);
  });
});

describe('a step', () => {
  const groups: TrainingGroup[] = [
    { rowIndex: 0, messages: [], rollouts: [{ completion: 'The harbor is quiet.', reward: 1 }, { completion: 'The engine writes text.', reward: 0 }] },
  ];
  const input = (over: Partial<TrainStepInput> = {}): TrainStepInput => ({ job, step: 1, baseModel, groups, hyperparameters: hp, nodeCount: 1, ...over });

  it('is idempotent for (job, step): a repeated step answers the first checkpoint and writes nothing new', async () => {
    const first = await trainer.step(ctx, input());
    const keys = await storage.blobs.list(ctx, '');
    const again = await trainer.step(ctx, input({ groups: [{ ...groups[0]!, rollouts: [...groups[0]!.rollouts].reverse() }] }));
    expect(again).toEqual(first);
    expect(await storage.blobs.list(ctx, '')).toEqual(keys);
    // A second trainer instance on the same store (another gateway instance) answers the same.
    expect(await createReferenceTrainer(storage.blobs).step(ctx, input())).toEqual(first);
  });

  it('recomputes the same bytes when a crash lost the answer after the files were written', async () => {
    const first = await trainer.step(ctx, input());
    const resultKeys = (await storage.blobs.list(ctx, '')).filter((key) => key.endsWith('/result.json'));
    expect(resultKeys).toHaveLength(1);
    await storage.blobs.delete(ctx, resultKeys[0]!);
    const again = await createReferenceTrainer(storage.blobs).step(ctx, input());
    expect(again.checkpoint).toEqual(first.checkpoint);
  });

  it('learns nothing from a group whose rewards are all equal, or from rollouts without a reward', async () => {
    const flat = await trainer.step(ctx, input({
      groups: [{ rowIndex: 0, messages: [], rollouts: [{ completion: 'The harbor.', reward: 0.5 }, { completion: 'A dock.', reward: 0.5 }, { completion: 'Ships.' }] }],
    }));
    expect(flat.metrics).toMatchObject({ gradNorm: 0, meanAdvantage: 0, rollouts: 2, meanReward: 0.5 });
  });

  it('pulls the policy back towards the base with klBeta, and only with it', async () => {
    // Several steps of learning, from different rollouts each time, give the add-on word biases.
    let from: TrainerCheckpoint | undefined;
    const gentle = { ...hp, learningRate: 1 };
    for (let step = 1; step <= 3; step += 1) ({ checkpoint: from } = await trainer.step(ctx, input({ step, hyperparameters: gentle, ...(from ? { from } : {}) })));
    const flat: TrainingGroup[] = [{ rowIndex: 0, messages: [], rollouts: [{ completion: 'Harbor.', reward: 1 }, { completion: 'Dock.', reward: 1 }] }];
    const withKl = { ...gentle, klBeta: 1 };
    const s4 = await trainer.step(ctx, input({ step: 4, from: from!, groups: flat, hyperparameters: withKl }));
    const s5 = await trainer.step(ctx, input({ step: 5, from: s4.checkpoint, groups: flat, hyperparameters: withKl }));
    expect(s4.metrics.klDivergence).toBeGreaterThan(0);
    expect(s4.metrics.gradNorm).toBeGreaterThan(0);
    expect(s5.metrics.klDivergence).toBeLessThan(s4.metrics.klDivergence!);
    const withoutKl = await trainer.step(ctx, input({ job: `${job}-b`, step: 4, from: from!, groups: flat, hyperparameters: gentle }));
    expect(withoutKl.metrics).toMatchObject({ gradNorm: 0, klDivergence: s4.metrics.klDivergence });
  });

  it('normalises per completion (GRPO, GSPO_TOKEN) or per token over the chunk (DAPO)', () => {
    const start = initialReferenceLora(job, hp.loraRank, hp.loraRank);
    const uneven: TrainingGroup[] = [{ rowIndex: 0, messages: [], rollouts: [{ completion: 'Harbor.', reward: 1 }, { completion: 'The engine writes plain text for tests.', reward: 0 }] }];
    const norm = (lossMethod: string) => grpoStep(start, uneven, { ...hp, lossMethod }).metrics.gradNorm!;
    expect(norm('GRPO')).toBeGreaterThan(0);
    expect(norm('GSPO_TOKEN')).toBe(norm('GRPO'));
    expect(norm('METHOD_UNSPECIFIED')).toBe(norm('GRPO'));
    // One word with advantage +1 against seven with −1: a per-token mean weighs the short answer less.
    expect(norm('DAPO')).toBeLessThan(norm('GRPO'));
  });

  it('starts a job\'s add-on with the port\'s loraAlpha (default: the rank), kept in its checkpoints', async () => {
    const read = async (checkpoint: TrainerCheckpoint, path: string) => (await storage.blobs.get(ctx, checkpointFileKey(checkpoint, path)))!.bytes;
    const alphaOf = async (checkpoint: TrainerCheckpoint) =>
      decodeReferenceLora(await read(checkpoint, 'adapter_model.safetensors'), await read(checkpoint, 'adapter_config.json'))!.alpha;
    const scaled = await trainer.step(ctx, input({ job: `${job}-alpha`, hyperparameters: { ...hp, loraAlpha: 16 } }));
    expect(await alphaOf(scaled.checkpoint)).toBe(16);
    const next = await trainer.step(ctx, input({ job: `${job}-alpha`, step: 2, from: scaled.checkpoint, hyperparameters: { ...hp, loraAlpha: 16 } }));
    expect(await alphaOf(next.checkpoint)).toBe(16);
    expect(await alphaOf((await trainer.step(ctx, input())).checkpoint)).toBe(hp.loraRank);
  });

  it('uses the job\'s learning rate with its linear warm-up, decoupled weight decay, and alpha / rank as the adapter\'s scale', () => {
    const groups: TrainingGroup[] = [{ rowIndex: 0, messages: [], rollouts: [{ completion: 'Harbor.', reward: 1 }, { completion: 'Dock.', reward: 0 }] }];
    const start = initialReferenceLora(job, hp.loraRank, hp.loraRank);
    const size = (w: { a: Float64Array; b: Float64Array }) => Math.sqrt([...w.a, ...w.b].reduce((s, x) => s + x * x, 0));
    const moved = (w: { a: Float64Array; b: Float64Array }) => Math.sqrt([...w.a].reduce((s, x, i) => s + (x - start.a[i]!) ** 2, 0) + [...w.b].reduce((s, x) => s + x * x, 0));
    const warm = { ...hp, learningRate: 0.5, learningRateWarmupSteps: 4 };
    // Step 1 of 4 warm-up steps trains at a quarter of the rate; from step 4 on, at the full rate.
    expect(grpoStep(start, groups, warm, 1).metrics.learningRate).toBe(0.125);
    expect(grpoStep(start, groups, warm, 2).metrics.learningRate).toBe(0.25);
    expect(grpoStep(start, groups, warm, 4).metrics.learningRate).toBe(0.5);
    expect(grpoStep(start, groups, { ...hp, learningRate: 0.5 }, 1).metrics.learningRate).toBe(0.5);
    expect(moved(grpoStep(start, groups, warm, 1).weights)).toBeCloseTo(moved(grpoStep(start, groups, warm, 4).weights) / 4, 10);
    // Weight decay shrinks the weights on top of the gradient step; without a gradient, it alone moves them.
    const flat: TrainingGroup[] = [{ rowIndex: 0, messages: [], rollouts: [{ completion: 'Harbor.', reward: 1 }, { completion: 'Dock.', reward: 1 }] }];
    const decayed = grpoStep(start, flat, { ...hp, learningRate: 0.5, optimizerWeightDecay: 0.2 }).weights;
    expect(size(decayed)).toBeCloseTo(size(start) * 0.9, 10);
    expect(size(grpoStep(start, flat, { ...hp, learningRate: 0.5 }).weights)).toBe(size(start));
    // alpha / rank scales the adapter's word biases: alpha = 2 × rank doubles them.
    const trained = grpoStep(start, groups, { ...hp, learningRate: 0.5 }).weights;
    const doubled = { ...trained, alpha: 2 * trained.rank };
    const bias = wordLogitBias(trained);
    const biasDoubled = wordLogitBias(doubled);
    const word = bias.findIndex((x) => x !== 0);
    expect(word).toBeGreaterThanOrEqual(0);
    expect(biasDoubled[word]).toBeCloseTo(2 * bias[word]!, 10);
  });

  it('refuses what it cannot train with a clear error', async () => {
    await expect(trainer.step(ctx, input({ hyperparameters: { ...hp, loraRank: 0 } }))).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    await expect(trainer.step(ctx, input({ hyperparameters: { ...hp, lossMethod: 'DPO' } }))).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('DPO') });
    await expect(trainer.step(ctx, input({ hyperparameters: { ...hp, learningRate: -1 } }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(trainer.step(ctx, input({ hyperparameters: { ...hp, optimizerWeightDecay: -1 } }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('optimizerWeightDecay') });
    await expect(trainer.step(ctx, input({ step: 0 }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const one = await trainer.step(ctx, input());
    await expect(trainer.step(ctx, input({ step: 2, from: { ...one.checkpoint, files: one.checkpoint.files.map((f) => ({ ...f, sha256: '0'.repeat(64) })) } })))
      .rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('SHA-256') });
    await expect(trainer.step(ctx, input({ step: 3, from: { ...one.checkpoint, step: 3 } }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('discard removes the job\'s checkpoints but the one kept', async () => {
    const one = await trainer.step(ctx, input());
    const two = await trainer.step(ctx, input({ step: 2, from: one.checkpoint }));
    await trainer.discard(ctx, job, two.checkpoint);
    const left = await storage.blobs.list(ctx, '');
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((key) => key.startsWith(two.checkpoint.keyPrefix.replace(/files\/$/, '')))).toBe(true);
    await trainer.discard(ctx, job);
    expect(await storage.blobs.list(ctx, '')).toEqual([]);
  });
});

/** Uploads a checkpoint's files as the files of the model `addon`, through signed PUTs as a client would. */
async function uploadCheckpoint(files: ModelFileService, admin: RequestContext, addon: string, checkpoint: TrainerCheckpoint, from: MemoryStorage | Storage): Promise<void> {
  const sizes = Object.fromEntries(checkpoint.files.map((f) => [f.path, String(f.sizeBytes)]));
  const { filenameToSignedUrls } = await files.getUploadEndpoint(admin, addon, { filenameToSize: sizes });
  for (const file of checkpoint.files) {
    const query = new URLSearchParams(filenameToSignedUrls[file.path]!.split('?')[1]);
    const bytes = (await from.blobs.get(ctx, checkpointFileKey(checkpoint, file.path)))!.bytes;
    await files.putFile(admin, { resource: addon, filename: file.path, method: 'PUT', expires: query.get('expires')!, signature: query.get('signature')! },
      { declaredLength: bytes.byteLength, chunks: (async function* () { yield bytes; })() }, 'application/octet-stream');
  }
}

const admin: RequestContext = {
  requestId: 'r2',
  principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin', email: 'admin@example.com' },
};

describe('a trained checkpoint as a model upload', () => {

  it('passes :validateUpload as a HUB_PEFT_ADDON of the reference base model (r = loraRank, target module lm_head)', async () => {
    const env = new ResourceEnvironment(storage, new ManualClock(), randomIdGenerator);
    const secrets = new GatewaySecrets('test-secret');
    await secrets.load(admin, storage.kv);
    const models = new ModelService(env, secrets);
    const files = new ModelFileService(env, secrets, models, { maxFileBytes: 1024 * 1024, maxModelBytes: 4 * 1024 * 1024 });
    await models.create(admin, 'acme', baseModelBody(), 'base');
    const { checkpoint } = await trainer.step(ctx, {
      job, step: 1, baseModel, hyperparameters: hp, nodeCount: 1,
      groups: [{ rowIndex: 0, messages: [], rollouts: [{ completion: 'The harbor.', reward: 1 }, { completion: 'A dock.', reward: 0 }] }],
    });
    const addon = 'accounts/acme/models/trained';
    await models.create(admin, 'acme', { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel, r: hp.loraRank, targetModules: ['lm_head'] } }, 'trained');
    await uploadCheckpoint(files, admin, addon, checkpoint, storage);
    await files.validateUpload(admin, addon);
    expect(await models.get(admin, addon)).toMatchObject({ state: 'READY', peftDetails: { r: hp.loraRank, targetModules: ['lm_head'] } });
  });
});

describe('the core binding', () => {
  it('binds the reference trainer to trainerToken, on the gateway\'s blob store', async () => {
    const tg = await createTestGateway({ plugins: [memoryStorage()] });
    try {
      const bound = tg.gateway.resolve(trainerToken);
      expect(bound.name).toBe('reference');
      const { checkpoint } = await bound.step(ctx, {
        job, step: 1, baseModel, hyperparameters: hp, nodeCount: 1,
        groups: [{ rowIndex: 0, messages: [], rollouts: [{ completion: 'The harbor.', reward: 1 }, { completion: 'A dock.', reward: 0 }] }],
      });
      const blobs = tg.gateway.resolve(storageToken).blobs;
      expect(await blobs.head(ctx, checkpointFileKey(checkpoint, 'adapter_model.safetensors'))).toMatchObject({ size: checkpoint.files.find((f) => f.path === 'adapter_model.safetensors')!.sizeBytes });
    } finally {
      await tg.stop();
    }
  });
});

describe('a trained add-on served by a deployment with enableAddons', () => {
  it('answers with what it learned, through the gateway\'s serving layer, where the base does not', async () => {
    const g = await startServingGateway({ runtime: (p) => testRuntime({ provisioner: p }), storage: memoryStorage() });
    try {
      const { services } = g.tg;
      await services.models.create(admin, 'acme', baseModelBody(), 'base');
      // Steps on fixed rollouts: answers that mention the harbor score 1, the others 0.
      const groups: TrainingGroup[] = [{
        rowIndex: 0, messages: [],
        rollouts: [
          { completion: 'Ships dock safely in the harbor.', reward: 1 }, { completion: 'The gateway routes each request.', reward: 0 },
          { completion: 'Harbor light tonight.', reward: 1 }, { completion: 'Every deployment scales on demand.', reward: 0 },
        ],
      }];
      const gatewayTrainer = g.tg.gateway.resolve(trainerToken);
      let checkpoint: TrainerCheckpoint | undefined;
      for (let step = 1; step <= 6; step += 1) {
        ({ checkpoint } = await gatewayTrainer.step(ctx, { job, step, baseModel, groups, hyperparameters: hp, nodeCount: 1, ...(checkpoint ? { from: checkpoint } : {}) }));
      }
      await services.models.create(admin, 'acme', { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel, r: hp.loraRank, targetModules: ['lm_head'] } }, 'trained');
      await uploadCheckpoint(services.modelFiles, admin, 'accounts/acme/models/trained', checkpoint!, g.tg.gateway.resolve(storageToken));
      await services.modelFiles.validateUpload(admin, 'accounts/acme/models/trained');
      await services.deployments.create(admin, 'acme', { baseModel, enableAddons: true }, { deploymentId: 'd' });
      await waitFor(() => services.deployments.get(admin, 'accounts/acme/deployments/d'), (d) => d.state === 'READY');
      await services.deployedModels.create(admin, 'acme', { model: 'accounts/acme/models/trained', deployment: 'accounts/acme/deployments/d' }, { deployedModelId: 'trained-on-d' });
      await waitFor(() => services.deployedModels.get(admin, 'accounts/acme/deployedModels/trained-on-d'), (r) => r.state === 'DEPLOYED');

      const answers = async (model: string) => {
        const lease = await g.directory.acquire(admin, await g.directory.resolve(admin, model));
        try {
          const response = await fetch(`${lease.endpoint}/v1/chat/completions`, {
            method: 'POST', headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: lease.servedModelId, messages: [{ role: 'user', content: 'Where do ships rest?' }], n: 16 }),
          });
          return ((await response.json()) as { choices: { message: { content: string } }[] }).choices.map((c) => c.message.content);
        } finally {
          lease.release();
        }
      };
      const base = await answers(baseModel);
      const trained = await answers('accounts/acme/models/trained');
      const rate = (texts: string[]) => texts.filter((t) => reward(t) === 1).length / texts.length;
      expect(trained).not.toEqual(base);
      expect(rate(trained), `base ${rate(base)}, trained ${rate(trained)}`).toBeGreaterThan(Math.min(1, rate(base) + 0.3));
    } finally {
      await g.stop();
    }
  });
});
