import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { isGatewayError, storageToken, systemContext, trainerToken, trainingFilesToken, type TrainerCheckpoint, type TrainStepInput } from '@berth/core';
import { buildSafetensors } from '@berth/core/testing';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { gpuyRuntime } from '@berth/plugin-runtime-gpuy';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

/**
 * The accelerator trainer of a runtime plugin against a fake Kubernetes API server (over HTTP, through
 * `@kubernetes/client-node`) that plays the cluster AND the team's trainer container: when a Job is applied,
 * it runs the container contract (docs/rft-trainers.md) against the real gateway — reads the step's input
 * document from `BERTH_TRAIN_SPEC_URL`, downloads the starting checkpoint and checks its SHA-256, uploads the
 * new adapter and metrics to the signed PUT URLs — and then marks the Job Complete, 3 s after it started.
 */

interface Manifest {
  kind: string;
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

interface ContainerEnv {
  [name: string]: string;
}

interface InputDocument {
  contractVersion: number;
  step: number;
  baseModel: string;
  hyperparameters: { learningRate: number; loraRank: number } & Record<string, unknown>;
  tracker: Record<string, string> | null;
  objectStore: Record<string, string> | null;
  nodeCount: number;
  from: null | { step: number; files: { path: string; sizeBytes: number; sha256: string; url: string }[] };
  groups: { rowIndex: number; rollouts: { completion: string; reward?: number }[] }[];
  outputs: { files: Record<string, string>; metrics: string };
}

/** How the fake cluster's trainer container behaves for an image. */
type Behaviour = 'train' | 'no-upload' | 'hang' | { readonly exitCode: number; readonly message: string };

/** Images whose tag makes the fake container exit with a code of the contract, with its termination message. */
const failingImages: Record<string, { exitCode: number; message: string }> = {
  'exit-2': { exitCode: 2, message: 'lossMethod DAPO is not supported by this trainer' },
  'exit-3': { exitCode: 3, message: 'the starting checkpoint has rank 16, not 8' },
  'exit-75': { exitCode: 75, message: 'download of the base model failed: connection reset' },
};

const behaviourOf = (image: string): Behaviour => {
  const tag = image.slice(image.lastIndexOf(':') + 1);
  return failingImages[tag] ?? (tag === 'no-upload' || tag === 'hang' ? tag : 'train');
};

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The "weights" of the fake trainer: one float per step, stored as a 1×1 F32 tensor. */
function adapterWeights(value: number): Uint8Array {
  const float = new Uint8Array(new Float32Array([value]).buffer);
  return buildSafetensors([{ name: 'base_model.model.layers.0.self_attn.q_proj.lora_A.weight', dtype: 'F32', shape: [1, 1] }], { fill: (i) => float[i]! });
}

function readWeight(bytes: Uint8Array): number {
  const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return new DataView(bytes.buffer, bytes.byteOffset + 8 + headerLength).getFloat32(0, true);
}

async function startFakeCluster(gatewayUrl: () => string) {
  const objects = new Map<string, Manifest>();
  const patches: Manifest[] = [];
  const uploaded = new Map<string, string>();
  const containerErrors: string[] = [];
  const deletes: string[] = [];
  const documents: InputDocument[] = [];
  const key = (plural: string, namespace: string, name: string) => `${plural}/${namespace}/${name}`;

  /** The trainer container of the contract, run once per applied Job. */
  const runContainer = async (job: Manifest, env: ContainerEnv, behaviour: Behaviour): Promise<void> => {
    const onGateway = (url: string) => url.replace('http://berth.berth.svc.cluster.local:8080', gatewayUrl());
    const spec = (await (await fetch(onGateway(env.BERTH_TRAIN_SPEC_URL!))).json()) as InputDocument;
    documents.push(spec);
    if (spec.contractVersion !== 1) throw new Error(`unknown contract version ${spec.contractVersion}`);
    let weight = 0;
    if (spec.from) {
      for (const file of spec.from.files) {
        const bytes = new Uint8Array(await (await fetch(onGateway(file.url))).arrayBuffer());
        if (bytes.byteLength !== file.sizeBytes || sha256(bytes) !== file.sha256) throw new Error(`checkpoint file ${file.path} does not match its record`);
        if (file.path.endsWith('.safetensors')) weight = readWeight(bytes);
      }
    }
    const rewards = spec.groups.flatMap((g) => g.rollouts.flatMap((r) => (r.reward === undefined ? [] : [r.reward])));
    const meanReward = rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length);
    if (behaviour === 'no-upload') return;
    const outputs: Record<string, Uint8Array> = {
      'adapter_config.json': new TextEncoder().encode(JSON.stringify({ peft_type: 'LORA', r: spec.hyperparameters.loraRank, target_modules: ['q_proj'], base_model_name_or_path: spec.baseModel })),
      'adapter_model.safetensors': adapterWeights(weight + spec.hyperparameters.learningRate * meanReward),
    };
    for (const [name, url] of Object.entries(spec.outputs.files)) {
      const body = outputs[name];
      if (!body) throw new Error(`the input document asks for ${name}, which this trainer does not make`);
      const answer = await fetch(onGateway(url), { method: 'PUT', body, headers: { 'content-type': 'application/octet-stream' } });
      if (answer.status !== 200) throw new Error(`PUT ${name}: ${answer.status} ${await answer.text()}`);
      uploaded.set(`${job.metadata.name}/${name}`, sha256(body));
    }
    await fetch(onGateway(spec.outputs.metrics), { method: 'PUT', body: JSON.stringify({ loss: 1 - meanReward, meanReward, note: 'not a number' }) });
  };

  const finish = (job: Manifest, type: 'Complete' | 'Failed', exit?: { exitCode: number; message: string }) => {
    const pod = objects.get(key('pods', job.metadata.namespace, `${job.metadata.name}-0`));
    if (pod) {
      const terminated = exit ? { exitCode: exit.exitCode, reason: 'Error', message: exit.message } : { exitCode: 0, reason: 'Completed' };
      pod.status = { phase: exit ? 'Failed' : 'Succeeded', containerStatuses: [{ name: 'trainer', state: { terminated } }] };
    }
    const start = new Date(Date.UTC(2026, 10, 24, 1, 0, 0));
    job.status = {
      startTime: start.toISOString(),
      ...(type === 'Complete' ? { completionTime: new Date(start.getTime() + 3000).toISOString(), succeeded: 1 } : { failed: 1 }),
      conditions: [{ type, status: 'True', reason: type === 'Failed' ? 'BackoffLimitExceeded' : 'Completed', ...(type === 'Failed' ? { message: 'Job has reached the specified backoff limit' } : {}) }],
    };
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = (await readBody(req)) as Manifest | undefined;
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.method === 'GET' && url.pathname === '/api/v1') {
        return json(200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [
          { name: 'services', namespaced: true, kind: 'Service', verbs: ['delete', 'list', 'patch'] },
          { name: 'pods', namespaced: true, kind: 'Pod', verbs: ['list'] },
          { name: 'secrets', namespaced: true, kind: 'Secret', verbs: ['delete', 'patch'] },
        ] });
      }
      if (req.method === 'GET' && url.pathname === '/apis/batch/v1') {
        return json(200, { kind: 'APIResourceList', groupVersion: 'batch/v1', resources: [{ name: 'jobs', namespaced: true, kind: 'Job', verbs: ['delete', 'list', 'patch'] }] });
      }
      const match = /^\/(?:api\/v1|apis\/batch\/v1)\/namespaces\/([^/]+)\/(jobs|services|pods|secrets)(?:\/([^/]+))?$/.exec(url.pathname);
      if (!match) return json(404, { kind: 'Status', code: 404, message: 'not found' });
      const [, namespace, plural, name] = match as unknown as [string, string, string, string | undefined];
      if (req.method === 'PATCH' && name && body) {
        patches.push(body);
        const existing = objects.get(key(plural, namespace, name));
        const stored: Manifest = { ...body, ...(existing?.status ? { status: existing.status } : {}) };
        objects.set(key(plural, namespace, name), stored);
        if (plural === 'jobs' && !existing) {
          const container = ((stored.spec as { template: { spec: { containers: { image: string; env: { name: string; value: string }[] }[] } } }).template.spec.containers)[0]!;
          const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
          const template = (stored.spec as { template: { metadata: { labels: Record<string, string> } } }).template;
          objects.set(key('pods', namespace, `${name}-0`), { kind: 'Pod', metadata: { name: `${name}-0`, namespace, labels: template.metadata.labels }, status: { phase: 'Running' } });
          const behaviour = behaviourOf(container.image);
          if (typeof behaviour === 'object') finish(stored, 'Failed', behaviour);
          else if (behaviour !== 'hang') {
            runContainer(stored, env, behaviour).then(
              () => finish(stored, 'Complete'),
              (error: unknown) => {
                containerErrors.push(String(error));
                finish(stored, 'Failed', { exitCode: 1, message: String(error) });
              },
            );
          }
        }
        return json(200, stored);
      }
      if (req.method === 'DELETE' && name) {
        deletes.push(`${plural}/${name}?propagationPolicy=${url.searchParams.get('propagationPolicy') ?? ''}`);
        if (!objects.delete(key(plural, namespace, name))) return json(404, { kind: 'Status', code: 404, reason: 'NotFound', message: `${name} not found` });
        return json(200, { kind: 'Status', status: 'Success' });
      }
      if (req.method === 'GET' && !name) {
        const selector = (url.searchParams.get('labelSelector') ?? '').split(',').filter(Boolean).map((pair) => pair.split('=') as [string, string]);
        const items = [...objects.entries()]
          .filter(([k]) => k.startsWith(`${plural}/${namespace}/`))
          .map(([, v]) => v)
          .filter((o) => selector.every(([label, value]) => o.metadata.labels?.[label] === value));
        return json(200, { kind: 'List', apiVersion: 'v1', metadata: {}, items });
      }
      return json(405, { kind: 'Status', code: 405 });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'tester', token: 'secret-token' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'tester' }],
    currentContext: 'fake',
  });
  return {
    kubeConfig,
    objects,
    patches,
    uploaded,
    containerErrors,
    deletes,
    documents,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const job = 'accounts/acme/reinforcementFineTuningJobs/toy';

function stepInput(step: number, from: TrainerCheckpoint | undefined, overrides: Partial<TrainStepInput> = {}): TrainStepInput {
  return {
    job,
    step,
    baseModel: 'accounts/fireworks/models/qwen3-8b',
    ...(from ? { from } : {}),
    groups: [
      { rowIndex: 0, messages: [{ role: 'user', content: 'name a harbor' }], rollouts: [{ completion: 'harbor', reward: 1 }, { completion: 'dock', reward: 0.5 }, { completion: '', }] },
      { rowIndex: 1, messages: [{ role: 'user', content: 'name a ship' }], rollouts: [{ completion: 'ship', reward: 0.75 }] },
    ],
    hyperparameters: { learningRate: 0.5, loraRank: 8, lossMethod: 'GRPO' },
    nodeCount: 1,
    ...overrides,
  };
}

describe('accelerator trainers: a training step as a Kubernetes Job of the trainer container', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function start(vendor: 'gpux' | 'gpuy', image = 'registry.example/trainer:1.0') {
    const gateway: { url?: string } = {};
    const cluster = await startFakeCluster(() => gateway.url!);
    closers.push(cluster.close);
    const trainer = {
      kind: 'kubernetes', image, namespace: 'training', pollIntervalMs: 10, gatewayUrl: 'http://berth.berth.svc.cluster.local:8080',
      acceleratorType: vendor === 'gpux' ? 'GPUX_H100_80GB' : 'GPUY_MI300X_192GB',
    } as const;
    const runtime = vendor === 'gpux' ? gpuxRuntime({ kubeConfig: cluster.kubeConfig, trainer }) : gpuyRuntime({ kubeConfig: cluster.kubeConfig, trainer });
    const harness = await startHarness({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), runtime] });
    gateway.url = harness.url;
    closers.push(harness.close);
    return { cluster, harness, trainer: harness.gateway.resolve(trainerToken) };
  }

  it('runs two steps on GPUX: the container reads its input, continues from the checkpoint, and the step is recorded once', async () => {
    const { cluster, trainer } = await start('gpux');
    expect(trainer.name).toBe('gpux-kubernetes');
    const ctx = systemContext('test');

    const first = await trainer.step(ctx, stepInput(1, undefined));
    expect(cluster.containerErrors).toEqual([]);
    expect(first.checkpoint.step).toBe(1);
    expect(first.checkpoint.files.map((f) => f.path)).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    for (const file of first.checkpoint.files) expect(file.sha256).toBe(cluster.uploaded.get(`${trainerJobNameOf(cluster, 1)}/${file.path}`));
    // Rewards 1, 0.5 and 0.75 (the failed rollout takes no part): mean 0.75.
    expect(first.metrics).toEqual({ loss: 0.25, meanReward: 0.75 });
    // 3 s of wall time on 8 accelerators of one node.
    expect(first.acceleratorSeconds).toEqual({ GPUX_H100_80GB: 24 });

    const job1 = cluster.patches.find((p) => p.kind === 'Job')!;
    const pod = (job1.spec as { template: { spec: Record<string, unknown> } }).template.spec as {
      nodeSelector: Record<string, string>;
      tolerations: { key: string }[];
      containers: { image: string; env: { name: string; value: string }[]; resources: { limits: Record<string, number> } }[];
    };
    expect(pod.nodeSelector).toEqual({ 'gpux.example/accelerator-type': 'GPUX_H100_80GB' });
    expect(pod.tolerations[0]!.key).toBe('gpux.example/gpu');
    expect(pod.containers[0]!.resources.limits).toEqual({ 'gpux.example/gpu': 8 });
    expect(pod.containers[0]!.image).toBe('registry.example/trainer:1.0');
    const env = Object.fromEntries(pod.containers[0]!.env.map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ GPUX_VISIBLE_DEVICES: '0,1,2,3,4,5,6,7', BERTH_TRAIN_STEP: '1', BERTH_TRAIN_NODE_COUNT: '1' });
    // The only credential in the pod spec is the step's signed, expiring input URL.
    expect(env.BERTH_TRAIN_SPEC_URL).toMatch(/^http:\/\/berth\.berth\.svc\.cluster\.local:8080\/v1\/accounts\/acme\/reinforcementFineTuningJobs\/toy\/files\/steps%2F1%2Finput\.json\?method=GET&expires=\d+&signature=/);
    expect(JSON.stringify(job1)).not.toContain('secret-token');
    // The Job is deleted once its checkpoint is recorded.
    expect([...cluster.objects.keys()].filter((k) => k.startsWith('jobs/'))).toEqual([]);
    // Deleted with background propagation, so its pods (and their accelerators) go too.
    expect(cluster.deletes).toEqual([`jobs/${job1.metadata.name}?propagationPolicy=Background`]);

    const second = await trainer.step(ctx, stepInput(2, first.checkpoint));
    expect(cluster.containerErrors).toEqual([]);
    expect(second.checkpoint.files.find((f) => f.path === 'adapter_model.safetensors')!.sha256).not.toBe(first.checkpoint.files.find((f) => f.path === 'adapter_model.safetensors')!.sha256);

    // Idempotent for (job, step): asked again (a crash, a lost answer), the step answers its recorded result and applies no Job.
    const patchesBefore = cluster.patches.length;
    expect(await trainer.step(ctx, stepInput(2, first.checkpoint))).toEqual(second);
    expect(cluster.patches.length).toBe(patchesBefore);

    await trainer.discard(ctx, job, second.checkpoint);
    const again = await trainer.step(ctx, stepInput(2, first.checkpoint));
    expect(again).toEqual(second);
  });

  it('passes the hyper-parameters, the tracker (its API key only through the job\'s Secret) and the object store to the container', async () => {
    const { cluster, trainer } = await start('gpux');
    const ctx = systemContext('test');
    const apiKey = 'tracker-secret-key-0042';
    const hyperparameters = { learningRate: 0.5, loraRank: 8, lossMethod: 'GRPO', batchSize: 4096, gradientAccumulationSteps: 2, learningRateWarmupSteps: 3, optimizerWeightDecay: 0.01 };
    const step = await trainer.step(ctx, stepInput(1, undefined, {
      hyperparameters,
      tracker: { apiKey, project: 'harbor', runId: 'r1' },
      objectStore: { credentialsSecret: 'acme-bucket', iamRoleArn: 'arn:aws:iam::123456789012:role/trainer' },
    }));
    expect(cluster.containerErrors).toEqual([]);
    expect(step.checkpoint.step).toBe(1);
    // The key is in the Secret only: not in the Job, not in the input document the container reads.
    const secret = cluster.patches.find((p) => p.kind === 'Secret') as unknown as { metadata: { name: string }; stringData: Record<string, string> };
    expect(secret.stringData).toEqual({ 'tracker-api-key': apiKey });
    const applied = cluster.patches.find((p) => p.kind === 'Job')!;
    expect(JSON.stringify(applied)).not.toContain(apiKey);
    expect(cluster.patches.indexOf(secret as unknown as Manifest)).toBeLessThan(cluster.patches.indexOf(applied));
    const container = (applied.spec as { template: { spec: { containers: { env: { name: string; value?: string; valueFrom?: unknown }[] }[] } } }).template.spec.containers[0]!;
    expect(container.env.find((e) => e.name === 'BERTH_TRAIN_TRACKER_API_KEY')).toEqual({
      name: 'BERTH_TRAIN_TRACKER_API_KEY', valueFrom: { secretKeyRef: { name: secret.metadata.name, key: 'tracker-api-key' } },
    });
    expect(Object.fromEntries(container.env.map((e) => [e.name, e.value]))).toMatchObject({
      BERTH_TRAIN_HP_LEARNING_RATE: '0.5', BERTH_TRAIN_HP_BATCH_SIZE: '4096', BERTH_TRAIN_HP_GRADIENT_ACCUMULATION_STEPS: '2', BERTH_TRAIN_HP_LEARNING_RATE_WARMUP_STEPS: '3',
      BERTH_TRAIN_HP_OPTIMIZER_WEIGHT_DECAY: '0.01', BERTH_TRAIN_TRACKER_PROJECT: 'harbor', BERTH_TRAIN_TRACKER_RUN_ID: 'r1',
      BERTH_TRAIN_OBJECT_STORE_ROLE_ARN: 'arn:aws:iam::123456789012:role/trainer', BERTH_TRAIN_OBJECT_STORE_CREDENTIALS_DIR: '/var/run/berth/object-store',
    });
    const document = cluster.documents.at(-1)!;
    expect(document.hyperparameters).toEqual(hyperparameters);
    expect(document.tracker).toEqual({ project: 'harbor', runId: 'r1' });
    expect(document.objectStore).toEqual({ credentialsSecret: 'acme-bucket', iamRoleArn: 'arn:aws:iam::123456789012:role/trainer' });
    expect(JSON.stringify(document)).not.toContain(apiKey);
    // The Secret goes with the job's checkpoints.
    expect([...cluster.objects.keys()]).toContain(`secrets/training/${secret.metadata.name}`);
    await trainer.discard(ctx, job);
    expect([...cluster.objects.keys()]).not.toContain(`secrets/training/${secret.metadata.name}`);
    // A credentials Secret of another account is refused before anything is applied.
    const patches = cluster.patches.length;
    await expect(trainer.step(ctx, stepInput(2, step.checkpoint, { objectStore: { credentialsSecret: 'globex-bucket' } })))
      .rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'TRAINER_INPUT_REFUSED' });
    expect(cluster.patches.length).toBe(patches);
  });

  it('follows the Job of a step that already runs instead of applying it again (two callers of one step)', async () => {
    const { cluster, trainer } = await start('gpux');
    const ctx = systemContext('test');
    const first = trainer.step(ctx, stepInput(1, undefined));
    // The second caller comes once the first one's Job exists (as after a crash, or on another instance).
    await expect.poll(() => cluster.patches.filter((p) => p.kind === 'Job').length).toBe(1);
    const [a, b] = await Promise.all([first, trainer.step(ctx, stepInput(1, undefined))]);
    expect(cluster.containerErrors).toEqual([]);
    expect(b).toEqual(a);
    // One Job applied: a second apply would change its pod template (a fresh signed URL), which Kubernetes refuses.
    expect(cluster.patches.filter((p) => p.kind === 'Job')).toHaveLength(1);
  });

  it('spans several nodes on GPUY with an Indexed Job and a headless Service for the coordinator', async () => {
    const { cluster, trainer } = await start('gpuy');
    const result = await trainer.step(systemContext('test'), stepInput(1, undefined, { nodeCount: 2 }));
    expect(result.acceleratorSeconds).toEqual({ GPUY_MI300X_192GB: 48 });
    const applied = cluster.patches.map((p) => p.kind);
    expect(applied).toEqual(['Service', 'Job']);
    const jobSpec = cluster.patches[1]!.spec as { completionMode: string; completions: number; template: { spec: { subdomain: string; containers: { env: { name: string; value: string }[]; resources: { limits: Record<string, number> } }[] } } };
    expect(jobSpec).toMatchObject({ completionMode: 'Indexed', completions: 2, parallelism: 2 });
    const container = jobSpec.template.spec.containers[0]!;
    expect(container.resources.limits).toEqual({ 'gpuy.example/gpu': 8 });
    const name = cluster.patches[1]!.metadata.name;
    expect(container.env).toEqual(expect.arrayContaining([
      { name: 'GPUY_VISIBLE_DEVICES', value: '0,1,2,3,4,5,6,7' },
      { name: 'BERTH_TRAIN_COORDINATOR', value: `${name}-0.${name}.training.svc:29500` },
    ]));
    expect(jobSpec.template.spec.subdomain).toBe(name);
    expect([...cluster.objects.keys()].filter((k) => !k.startsWith('pods/'))).toEqual([]);
  });

  it('starts from a checkpoint stored elsewhere (a warm-start add-on) by copying it into the job\'s files', async () => {
    const { cluster, harness, trainer } = await start('gpux');
    const ctx = systemContext('test');
    const blobs = harness.gateway.resolve(storageToken).blobs;
    const weights = adapterWeights(2);
    await blobs.put(ctx, 'models/acme/warm/adapter_model.safetensors', weights, 'application/octet-stream');
    await blobs.put(ctx, 'models/acme/warm/adapter_config.json', new TextEncoder().encode('{"r":8}'), 'application/json');
    const heads = await Promise.all(['adapter_config.json', 'adapter_model.safetensors'].map(async (path) => ({ path, head: (await blobs.head(ctx, `models/acme/warm/${path}`))! })));
    const from = { step: 0, keyPrefix: 'models/acme/warm', files: heads.map(({ path, head }) => ({ path, sizeBytes: head.size, sha256: head.sha256 })) };
    const result = await trainer.step(ctx, stepInput(1, from));
    expect(cluster.containerErrors).toEqual([]);
    const made = await blobs.get(ctx, `${result.checkpoint.keyPrefix}/adapter_model.safetensors`);
    // The container read the warm start's weight (2) and added learningRate × mean reward (0.5 × 0.75).
    expect(readWeight(made!.bytes)).toBeCloseTo(2.375, 5);
  });

  it.each([
    ['exit-2', 'INVALID_ARGUMENT', 'lossMethod DAPO is not supported by this trainer'],
    ['exit-3', 'FAILED_PRECONDITION', 'the starting checkpoint has rank 16, not 8'],
    ['exit-75', 'UNAVAILABLE', 'download of the base model failed: connection reset'],
  ])('reports a Job failed with %s as %s with the termination message, and removes the Job so a retry starts afresh', async (tag, code, message) => {
    const { cluster, trainer } = await start('gpux', `registry.example/trainer:${tag}`);
    const error = await trainer.step(systemContext('test'), stepInput(1, undefined)).catch((e: unknown) => e);
    expect(isGatewayError(error) && error.code).toBe(code);
    expect(String((error as Error).message)).toBe(`training step 1 of ${job} failed on Kubernetes (exit code ${tag.slice(5)}): ${message}`);
    expect([...cluster.objects.keys()].filter((k) => !k.startsWith('pods/'))).toEqual([]);
  });

  it('refuses a step whose container exited without uploading the checkpoint', async () => {
    const { trainer } = await start('gpux', 'registry.example/trainer:no-upload');
    const error = await trainer.step(systemContext('test'), stepInput(1, undefined)).catch((e: unknown) => e);
    expect(isGatewayError(error) && error.code).toBe('FAILED_PRECONDITION');
    expect(String((error as Error).message)).toContain('exited without uploading adapter_config.json');
  });

  it('stops a running step when the job is cancelled, deleting its Job', async () => {
    const { cluster, trainer } = await start('gpux', 'registry.example/trainer:hang');
    const stop = new AbortController();
    const running = trainer.step(systemContext('test'), stepInput(1, undefined, { signal: stop.signal })).catch((e: unknown) => e);
    const jobs = () => [...cluster.objects.keys()].filter((k) => k.startsWith('jobs/')).length;
    await expect.poll(jobs).toBe(1);
    stop.abort();
    const error = await running;
    expect(isGatewayError(error) && error.code).toBe('ABORTED');
    expect(jobs()).toBe(0);
  });

  it('signs each URL for one method and one file: the input cannot be overwritten through its download URL', async () => {
    const { harness } = await start('gpux', 'registry.example/trainer:hang');
    const files = harness.gateway.resolve(trainingFilesToken);
    const download = files.signedUrl(job, 'steps/1/input.json', 'GET');
    const asPut = await fetch(`${harness.url}${download}`, { method: 'PUT', body: '{}' });
    expect(asPut.status).toBe(400);
    const forged = await fetch(`${harness.url}${download.replace('input.json', 'result.json')}`);
    expect(forged.status).toBe(403);
    const upload = files.signedUrl(job, 'steps/1/metrics.json', 'PUT');
    expect((await fetch(`${harness.url}${upload}`, { method: 'PUT', body: '{"loss":1}' })).status).toBe(200);
    const traversal = files.signedUrl(job, 'steps/1/metrics.json', 'PUT').replace('steps%2F1%2Fmetrics.json', '..%2F..%2Fother%2Fx');
    expect((await fetch(`${harness.url}${traversal}`, { method: 'PUT', body: 'x' })).status).toBe(403);
  });
});

function trainerJobNameOf(cluster: { patches: Manifest[] }, step: number): string {
  return cluster.patches.filter((p) => p.kind === 'Job').find((p) => p.metadata.labels?.['berth.dev/training-step'] === String(step))!.metadata.name;
}

