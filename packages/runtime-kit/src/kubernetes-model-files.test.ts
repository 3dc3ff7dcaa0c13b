import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceEngine, systemContext, type ModelFileSource, type ReferenceEngine } from '@berth/core';
import { memoryModelFileSource, testAcceleratorTypes, testLaunchProfile } from '@berth/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubernetesManifest } from './kubernetes-manifests.js';
import type { KubernetesApi } from './kubernetes-provisioner.js';
import { modelFetcherScript, type FetchPlan } from './model-fetcher.js';
import { defineKubernetesVendorRuntime } from './vendor-runtime.js';

const ctx = systemContext('test');
const hasPython = spawnSync('python3', ['--version']).status === 0;
const { create } = defineKubernetesVendorRuntime({ id: 'test', vendor: 'test', acceleratorTypes: testAcceleratorTypes, launch: testLaunchProfile });
const spec = { baseModel: 'accounts/a/models/base', acceleratorType: testAcceleratorTypes[0]!.type, acceleratorCount: 1, enableAddons: true, numPeftDeviceCached: 2 };

/** A fake Kubernetes API keeping applied objects; every Deployment has a ready pod. */
function fakeKubernetes(): KubernetesApi & { applied: KubernetesManifest[] } {
  const applied: KubernetesManifest[] = [];
  return {
    applied,
    async apply(_ctx, manifest) {
      applied.push(manifest);
    },
    async delete() {},
    async list(_ctx, query) {
      if (query.kind !== 'Pod') return [];
      return applied
        .filter((o) => o.kind === 'Deployment')
        .map((d) => ({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `${d.metadata.name}-pod`, labels: (d.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels },
          status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }] },
        }));
    },
  };
}

/** The gateway's signed file URLs, served from model file sources (what model-upload's download route does). */
async function fileServer(sources: readonly ModelFileSource[]): Promise<{ url: string; server: Server; served: string[] }> {
  const served: string[] = [];
  const files = new Map<string, { source: ModelFileSource; path: string }>();
  for (const source of sources) for (const f of source.files) files.set(source.signedUrl(f.path, 1).split('?')[0]!, { source, path: f.path });
  const server = createServer((req, res) => {
    const file = files.get((req.url ?? '').split('?')[0]!);
    if (!file) return void res.writeHead(404).end();
    served.push(file.path);
    void file.source.read(ctx, file.path).then(async (chunks) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for await (const chunk of chunks) res.write(chunk);
      res.end();
    }, () => res.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, served };
}

let dir: string;
const cleanups: (() => Promise<unknown> | void)[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'berth-k8s-files-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

const weights = memoryModelFileSource('accounts/a/models/base', { 'config.json': '{"model_type":"llama"}', 'model.safetensors': new Uint8Array(100_000).fill(3) });
const adapterFiles = (b: number) => ({ 'adapter_config.json': '{"r":8,"target_modules":["q_proj"]}', 'adapter_model.safetensors': new Uint8Array(5000).fill(b) });

describe('kubernetes replicas of uploaded models', () => {
  it('render the download step with short-lived signed URLs, the engine args pointing at the files, and the add-on fetcher', async () => {
    const api = fakeKubernetes();
    const runtime = create({ provisioner: { kind: 'kubernetes', api, gatewayUrl: 'http://gw.berth:8080/', downloadUrlTtlSeconds: 900, pollIntervalMs: 10 } });
    cleanups.push(() => runtime.provisioner.close());
    await runtime.provisioner.startReplica(ctx, { replicaId: 'r-0', deployment: 'accounts/a/deployments/d', spec, weights });
    const [deployment, service] = api.applied;
    const pod = podOf(deployment);
    const init = pod.initContainers[0]!;
    expect(init.name).toBe('model-download');
    expect(init.command).toEqual(['python3', '-c', modelFetcherScript, 'once']);
    const env = Object.fromEntries(init.env!.map((e) => [e.name, e.value]));
    expect(env.BERTH_GATEWAY_URL).toBe('http://gw.berth:8080/');
    const plan = JSON.parse(env.BERTH_FETCH_PLAN!) as FetchPlan;
    expect(plan.dir).toBe('/models/weights');
    expect(plan.files).toEqual(
      weights.files.map((f) => ({ path: f.path, size: f.sizeBytes, sha256: f.sha256, url: `http://gw.berth:8080${weights.signedUrl(f.path, 900)}` })),
    );
    const [engine, fetcher] = pod.containers;
    const args = engine!.args!.join(' ');
    expect(args).toContain('--model /models/weights --served-model-name accounts/a/models/base');
    expect(args).toContain('--enable-lora --max-loras 2 --max-cpu-loras 2 --max-lora-rank 64');
    expect(engine!.env).toContainEqual({ name: 'VLLM_ALLOW_RUNTIME_LORA_UPDATING', value: 'True' });
    expect(fetcher).toMatchObject({ name: 'addon-fetcher', command: ['python3', '-c', modelFetcherScript, 'serve', '8081'], ports: [{ name: 'fetch', containerPort: 8081 }] });
    expect((service!.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(['http', 'fetch']);
    // The only credentials in the pod spec are the plan's signed URLs (bound to file, method and expiry).
    const everyEnv = [...pod.initContainers, ...pod.containers].flatMap((c) => c.env ?? []);
    expect(everyEnv.filter((e) => /signature/.test(e.value)).map((e) => e.name)).toEqual(['BERTH_FETCH_PLAN']);
  });

  it('refuse an uploaded model without gatewayUrl (FAILED_PRECONDITION), and render the old download step otherwise', async () => {
    const api = fakeKubernetes();
    const runtime = create({ provisioner: { kind: 'kubernetes', api, pollIntervalMs: 10 } });
    cleanups.push(() => runtime.provisioner.close());
    await expect(runtime.provisioner.startReplica(ctx, { replicaId: 'r-1', deployment: 'accounts/a/deployments/d', spec, weights })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('gatewayUrl'),
    });
    await runtime.provisioner.startReplica(ctx, { replicaId: 'r-2', deployment: 'accounts/a/deployments/d', spec: { ...spec, enableAddons: false } });
    const pod = podOf(api.applied[0]);
    expect(pod.initContainers[0]!.args).toEqual(['download', '--model', 'accounts/a/models/base', '--download-dir', '/models']);
    expect(pod.containers.map((c) => c.name)).toEqual(['engine']);
  });

  it.skipIf(!hasPython)('download the weights with the rendered init container, checking each file, and fail naming a corrupt one', async () => {
    const corrupt = memoryModelFileSource('accounts/a/models/bad', { 'config.json': '{}' }, { recorded: { 'config.json': { sha256: 'a'.repeat(64) } } });
    const files = await fileServer([weights, corrupt]);
    cleanups.push(() => new Promise((r) => files.server.close(r)));
    const api = fakeKubernetes();
    const runtime = create({ provisioner: { kind: 'kubernetes', api, gatewayUrl: files.url, modelCachePath: dir, pollIntervalMs: 10 } });
    cleanups.push(() => runtime.provisioner.close());
    await runtime.provisioner.startReplica(ctx, { replicaId: 'ok-0', deployment: 'accounts/a/deployments/d', spec, weights });
    await runtime.provisioner.startReplica(ctx, { replicaId: 'bad-0', deployment: 'accounts/a/deployments/d', spec, weights: corrupt });
    const initOf = (i: number) => podOf(api.applied[i]).initContainers[0]!;
    const ok = await runInit(initOf(0));
    expect(ok.status).toBe(0);
    expect(await readFile(join(dir, 'weights', 'model.safetensors'))).toEqual(Buffer.from(new Uint8Array(100_000).fill(3)));
    const bad = await runInit(initOf(2));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/model download failed: config\.json: got 2 bytes with SHA-256 [0-9a-f]{64}; 2 bytes with SHA-256 a{64} were recorded/);
  });

  it.skipIf(!hasPython)('load an add-on through the fetcher sidecar and the engine’s adapter route; its bytes decide its answers', async () => {
    const one = memoryModelFileSource('accounts/a/models/one', adapterFiles(1));
    const two = memoryModelFileSource('accounts/a/models/two', adapterFiles(2));
    const corrupt = memoryModelFileSource('accounts/a/models/bad', adapterFiles(3), { recorded: { 'adapter_model.safetensors': { sizeBytes: 4999 } } });
    const files = await fileServer([one, two, corrupt]);
    cleanups.push(() => new Promise((r) => files.server.close(r)));
    const engine = await startReferenceEngine({ modelIds: ['accounts/a/models/base'], lora: { maxLoras: 2 } });
    cleanups.push(() => engine.close());
    const fetcherPort = await freePort();
    const api = fakeKubernetes();
    const runtime = create({
      provisioner: {
        kind: 'kubernetes',
        api,
        gatewayUrl: files.url,
        modelCachePath: dir,
        pollIntervalMs: 10,
        addonFetcherPort: fetcherPort,
        // The engine and the sidecar of the replica listen on loopback here.
        endpointFor: (_service, _namespace, port) => (port === fetcherPort ? `http://127.0.0.1:${port}` : engine.url),
      },
    });
    cleanups.push(() => runtime.provisioner.close());
    const handle = await runtime.provisioner.startReplica(ctx, { replicaId: 'lora-0', deployment: 'accounts/a/deployments/d', spec });
    const fetcher = await startFetcher(podOf(api.applied[0]).containers[1]!, fetcherPort);
    cleanups.push(() => void fetcher.kill());
    await handle.settled({ timeoutMs: 5000 });
    const adapters = runtime.provisioner.adapters!;
    await adapters.load(ctx, 'lora-0', { name: 'accounts/a/models/one', source: one });
    await adapters.load(ctx, 'lora-0', { name: 'accounts/a/models/two', source: two });
    expect(await adapters.loaded(ctx, 'lora-0')).toEqual(['accounts/a/models/one', 'accounts/a/models/two']);
    const answers = await Promise.all(['accounts/a/models/base', 'accounts/a/models/one', 'accounts/a/models/two'].map((m) => chat(engine, m)));
    expect(new Set(answers).size).toBe(3);
    await expect(adapters.load(ctx, 'lora-0', { name: 'accounts/a/models/bad', source: corrupt })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/could not download add-on accounts\/a\/models\/bad: adapter_model\.safetensors: got 5000 bytes/),
    });
    await adapters.unload(ctx, 'lora-0', 'accounts/a/models/one');
    expect(await adapters.loaded(ctx, 'lora-0')).toEqual(['accounts/a/models/two']);
    // Reloaded after an eviction: its files are still in the cache and checked, not downloaded again.
    const served = files.served.length;
    await adapters.unload(ctx, 'lora-0', 'accounts/a/models/two');
    await adapters.load(ctx, 'lora-0', { name: 'accounts/a/models/one', source: one });
    expect(files.served.length).toBe(served);
    expect(await chat(engine, 'accounts/a/models/one')).toBe(answers[1]);
  });
});

/** The pod spec of an applied Deployment. */
function podOf(manifest: KubernetesManifest | undefined): { initContainers: Container[]; containers: Container[] } {
  return (manifest?.spec as unknown as { template: { spec: { initContainers: Container[]; containers: Container[] } } }).template.spec;
}

interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value: string }[];
  ports?: { name: string; containerPort: number }[];
}

function runInit(container: Container): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(container.command![0]!, container.command!.slice(1), { env: { PATH: process.env.PATH, ...Object.fromEntries(container.env!.map((e) => [e.name, e.value])) } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  return port;
}

/** Runs the sidecar as rendered (its command and environment), until its health check answers. */
async function startFetcher(container: Container, port: number): Promise<ChildProcess> {
  const command = container.command!;
  const child = spawn(command[0]!, command.slice(1), { env: { PATH: process.env.PATH, ...Object.fromEntries(container.env!.map((e) => [e.name, e.value])) } });
  for (let i = 0; i < 200; i += 1) {
    if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)) return child;
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill();
  throw new Error('the fetcher did not start');
}

async function chat(engine: ReferenceEngine, model: string): Promise<string> {
  const response = await fetch(`${engine.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
}
