import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import {
  acceleratorRuntimesToken,
  imageEnginesToken,
  fp4Precisions,
  fp8Precisions,
  systemContext,
  type AcceleratorRuntime,
  type Binder,
  type ImageEngine,
  type SimulatedProvisioner,
} from '@berth/core';
import { describeRuntimeContract, memoryModelFileSource } from '@berth/core/testing';
import { modelFetcherScript, type FetchPlan } from '@berth/runtime-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createGpuxRuntime, gpuxAcceleratorTypes, gpuxRuntime } from './index.js';

const fast = { kind: 'simulated', delays: { schedulingMs: 5, downloadingMs: 5, initializingMs: 5 } } as const;

describeRuntimeContract('gpux (simulated)', () => createGpuxRuntime({ provisioner: fast }), {
  injectFailure: (runtime) => (runtime.provisioner as SimulatedProvisioner).injectFailures({ failNextReplicas: 1 }),
});

describe('GPUX catalogue', () => {
  const supports = (type: string) => gpuxAcceleratorTypes.find((t) => t.type === type)?.supportedPrecisions ?? [];

  it('declares the seven GPUX types with their memory', () => {
    expect(Object.fromEntries(gpuxAcceleratorTypes.map((t) => [t.type, t.memoryGiB]))).toEqual({
      GPUX_A10G_24GB: 24,
      GPUX_A100_40GB: 40,
      GPUX_A100_80GB: 80,
      GPUX_L4_24GB: 24,
      GPUX_H100_80GB: 80,
      GPUX_H200_141GB: 141,
      GPUX_B200_180GB: 180,
    });
  });

  it('follows the precision table', () => {
    for (const type of gpuxAcceleratorTypes.map((t) => t.type)) {
      expect(supports(type)).toEqual(expect.arrayContaining(['FP16', 'BF16', 'NF4']));
    }
    for (const type of ['GPUX_A10G_24GB', 'GPUX_A100_40GB', 'GPUX_A100_80GB']) {
      expect(supports(type).filter((p) => p.startsWith('FP8') || p.startsWith('FP4'))).toEqual([]);
    }
    for (const type of ['GPUX_L4_24GB', 'GPUX_H100_80GB', 'GPUX_H200_141GB', 'GPUX_B200_180GB']) {
      expect(supports(type)).toEqual(expect.arrayContaining([...fp8Precisions]));
    }
    for (const type of ['GPUX_L4_24GB', 'GPUX_H100_80GB', 'GPUX_H200_141GB']) {
      expect(supports(type).filter((p) => p.startsWith('FP4'))).toEqual([]);
    }
    expect(supports('GPUX_B200_180GB')).toEqual(expect.arrayContaining([...fp4Precisions]));
  });

  it('names both the type and precision when rejecting a combination', () => {
    const runtime = createGpuxRuntime();
    expect(() => runtime.validate({ acceleratorType: 'GPUX_A100_80GB', precision: 'FP8' })).toThrow(/FP8.*GPUX_A100_80GB/);
    expect(() => runtime.validate({ acceleratorType: 'GPUY_MI300X_192GB', precision: 'FP16' })).toThrow(/GPUY_MI300X_192GB/);
  });

  it('sizes realistic models', () => {
    const runtime = createGpuxRuntime();
    const count = (acceleratorType: string, parameterCount: string, precision: 'BF16' | 'FP8' = 'BF16') =>
      runtime.estimateSize({ acceleratorType, parameterCount, precision, contextLength: 8192 }).acceleratorCount;
    expect(count('GPUX_A10G_24GB', '8000000000')).toBe(1);
    expect(count('GPUX_A100_80GB', '70000000000')).toBe(4);
    expect(count('GPUX_H200_141GB', '70000000000')).toBe(2);
    expect(count('GPUX_H100_80GB', '70000000000', 'FP8')).toBe(2);
    expect(count('GPUX_H100_80GB', '405000000000', 'FP8')).toBe(8);
    expect(() => count('GPUX_H100_80GB', '405000000000')).toThrow(/GPUX_H100_80GB/);
  });
});

describe('gpuxRuntime plugin', () => {
  it('has id runtime-gpux and contributes its runtime', async () => {
    const plugin = gpuxRuntime({ provisioner: fast });
    expect(plugin.id).toBe('runtime-gpux');
    const contributed: unknown[] = [];
    const engines: ImageEngine[] = [];
    const binder: Binder = {
      bindValue: () => undefined,
      bind: () => undefined,
      contribute: ((token: unknown, value: unknown) => {
        if (token === imageEnginesToken) return void engines.push(value as ImageEngine);
        expect(token).toBe(acceleratorRuntimesToken);
        contributed.push(value);
      }) as Binder['contribute'],
    };
    plugin.register(binder);
    expect(contributed).toHaveLength(1);
    // The simulated pool serves the reference image engine.
    expect(engines.map((e) => e.name)).toEqual(['reference']);
    const runtime = contributed[0] as AcceleratorRuntime;
    expect(runtime.vendor).toBe('gpux');
    expect(runtime.provisioner.kind).toBe('simulated');
    const ctx = systemContext('test');
    const handle = await runtime.provisioner.startReplica(ctx, {
      replicaId: 'r1',
      deployment: 'accounts/a/deployments/d',
      spec: { baseModel: 'accounts/a/models/m', acceleratorType: 'GPUX_L4_24GB', acceleratorCount: 1 },
    });
    await handle.settled({ timeoutMs: 5000 });
    await plugin.stop?.({ resolver: undefined as never, logger: undefined as never, signal: new AbortController().signal });
    expect(handle.status().phase).toBe('stopped');
  });
});

interface Recorded {
  method: string;
  path: string;
  contentType: string | undefined;
  body: unknown;
}

/** A tiny recording Kubernetes API server: answers discovery, apply, list and delete like the real one would. */
async function startFakeKubernetes(): Promise<{ url: string; requests: Recorded[]; pods: Map<string, unknown>; close: () => Promise<void> }> {
  const requests: Recorded[] = [];
  const objects = new Map<string, Record<string, unknown>>();
  const pods = new Map<string, unknown>();
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, contentType: req.headers['content-type'], body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.method === 'GET' && url.pathname === '/api/v1') {
        return json(200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [
          { name: 'services', namespaced: true, kind: 'Service', verbs: ['create', 'delete', 'get', 'list', 'patch'] },
          { name: 'pods', namespaced: true, kind: 'Pod', verbs: ['get', 'list'] },
        ] });
      }
      if (req.method === 'GET' && url.pathname === '/apis/apps/v1') {
        return json(200, { kind: 'APIResourceList', groupVersion: 'apps/v1', resources: [
          { name: 'deployments', namespaced: true, kind: 'Deployment', verbs: ['create', 'delete', 'get', 'list', 'patch'] },
        ] });
      }
      const match = /^\/(?:api\/v1|apis\/apps\/v1)\/namespaces\/([^/]+)\/(deployments|services|pods)(?:\/([^/]+))?$/.exec(url.pathname);
      if (!match) return json(404, { kind: 'Status', code: 404, message: 'not found' });
      const [, namespace, plural, name] = match;
      const key = `${plural}/${namespace}/${name}`;
      if (req.method === 'PATCH' && name) {
        objects.set(key, body as Record<string, unknown>);
        return json(200, body);
      }
      if (req.method === 'DELETE' && name) {
        if (!objects.delete(key)) return json(404, { kind: 'Status', code: 404, reason: 'NotFound', message: `${name} not found` });
        return json(200, { kind: 'Status', status: 'Success' });
      }
      if (req.method === 'GET' && !name) {
        const items = plural === 'pods' ? [...pods.values()] : [...objects.entries()].filter(([k]) => k.startsWith(`${plural}/${namespace}/`)).map(([, v]) => v);
        return json(200, { kind: 'List', apiVersion: 'v1', metadata: {}, items });
      }
      return json(405, { kind: 'Status', code: 405 });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    pods,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('GPUX replicas of an uploaded model on Kubernetes', () => {
  it('render the download step on short-lived signed URLs, the engine on the local files and run-time LoRA', async () => {
    const applied: { kind: string; spec?: unknown }[] = [];
    const api = { apply: async (_ctx: unknown, m: { kind: string }) => void applied.push(m), delete: async () => {}, list: async () => [] };
    const runtime = createGpuxRuntime({ provisioner: { kind: 'kubernetes', api, gatewayUrl: 'https://berth.internal', downloadUrlTtlSeconds: 300 } });
    const weights = memoryModelFileSource('accounts/a/models/mine', { 'config.json': '{}', 'model.safetensors': new Uint8Array(32) });
    await runtime.provisioner.startReplica(systemContext('test'), {
      replicaId: 'mine-0',
      deployment: 'accounts/a/deployments/mine',
      spec: { baseModel: 'accounts/a/models/mine', acceleratorType: 'GPUX_L4_24GB', acceleratorCount: 1, enableAddons: true },
      weights,
    });
    await runtime.provisioner.close();
    type Container = { name: string; command?: string[]; args: string[]; env: { name: string; value: string }[] };
    const pod = (applied[0]!.spec as { template: { spec: { initContainers: Container[]; containers: Container[] } } }).template.spec;
    const init = pod.initContainers[0]!;
    expect(init.command).toEqual(['python3', '-c', modelFetcherScript, 'once']);
    const plan = JSON.parse(init.env.find((e) => e.name === 'BERTH_FETCH_PLAN')!.value) as FetchPlan;
    expect(plan.files.map((f) => f.url)).toEqual([
      `https://berth.internal${weights.signedUrl('config.json', 300)}`,
      `https://berth.internal${weights.signedUrl('model.safetensors', 300)}`,
    ]);
    const engine = pod.containers[0]!;
    expect(engine.args.slice(0, 4)).toEqual(['--model', '/models/weights', '--served-model-name', 'accounts/a/models/mine']);
    expect(engine.args.join(' ')).toContain('--enable-lora --max-loras 4 --max-cpu-loras 4 --max-lora-rank 64');
    expect(engine.env).toEqual(expect.arrayContaining([{ name: 'GPUX_VISIBLE_DEVICES', value: '0' }, { name: 'VLLM_ALLOW_RUNTIME_LORA_UPDATING', value: 'True' }]));
    expect(pod.containers.map((c) => c.name)).toEqual(['engine', 'addon-fetcher']);
  });
});

describe('kubernetes provisioner through @kubernetes/client-node', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('applies Deployment + Service, follows pod phases, re-adopts and deletes', async () => {
    const fake = await startFakeKubernetes();
    closers.push(fake.close);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'fake', server: fake.url, skipTLSVerify: true }],
      users: [{ name: 'tester', token: 'secret-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'tester' }],
      currentContext: 'fake',
    });
    const options = {
      kubeConfig,
      image: 'registry.example/engine:1.2.3',
      provisioner: { kind: 'kubernetes', namespace: 'inference', pollIntervalMs: 10 },
    } as const;
    const runtime = createGpuxRuntime(options);
    closers.push(() => runtime.provisioner.close());
    const ctx = systemContext('test');
    const handle = await runtime.provisioner.startReplica(ctx, {
      replicaId: 'dep1-0',
      deployment: 'accounts/acme/deployments/dep1',
      spec: {
        baseModel: 'accounts/acme/models/llama-70b',
        acceleratorType: 'GPUX_H100_80GB',
        acceleratorCount: 4,
        precision: 'FP8_MM_KV_ATTN',
        maxContextLength: 32768,
        draftModel: 'accounts/acme/models/llama-1b-draft',
        draftTokenCount: 5,
        enableAddons: true,
        numPeftDeviceCached: 8,
      },
    });

    const patches = fake.requests.filter((r) => r.method === 'PATCH');
    expect(patches.map((r) => r.path.split('?')[0])).toEqual([
      '/apis/apps/v1/namespaces/inference/deployments/berth-dep1-0',
      '/api/v1/namespaces/inference/services/berth-dep1-0',
    ]);
    expect(patches[0]?.contentType).toBe('application/apply-patch+yaml');
    expect(patches[0]?.path).toContain('fieldManager=berth');
    expect(patches[0]?.path).toContain('force=true');
    const deployment = patches[0]?.body as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: { replicas: number; template: { spec: { nodeSelector: Record<string, string>; containers: { image: string; args: string[]; env: { name: string; value: string }[]; resources: { limits: Record<string, number> } }[]; initContainers: { name: string }[] } } };
    };
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.metadata.labels['berth.dev/vendor']).toBe('gpux');
    expect(deployment.metadata.annotations['berth.dev/deployment']).toBe('accounts/acme/deployments/dep1');
    const pod = deployment.spec.template.spec;
    expect(pod.nodeSelector).toEqual({ 'gpux.example/accelerator-type': 'GPUX_H100_80GB' });
    expect(pod.initContainers.map((c) => c.name)).toEqual(['model-download']);
    const engine = pod.containers[0]!;
    expect(engine.image).toBe('registry.example/engine:1.2.3');
    expect(engine.resources.limits).toEqual({ 'gpux.example/gpu': 4 });
    expect(engine.env).toContainEqual({ name: 'GPUX_VISIBLE_DEVICES', value: '0,1,2,3' });
    const args = engine.args.join(' ');
    expect(args).toContain('--tensor-parallel-size 4');
    expect(args).toContain('--quantization fp8');
    expect(args).toContain('--kv-cache-dtype fp8');
    expect(args).toContain('--max-model-len 32768');
    expect(args).toContain('"method":"draft_model"');
    expect(args).toContain('"num_speculative_tokens":5');
    expect(args).toContain('--enable-lora --max-loras 8');
    const service = patches[1]?.body as { spec: { selector: Record<string, string>; ports: { port: number }[] } };
    expect(service.spec.selector).toEqual({ 'berth.dev/replica': 'dep1-0' });

    expect(handle.status().phase).toBe('pending_scheduling');
    const podObject = (status: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'berth-dep1-0-abc', namespace: 'inference', labels: { 'berth.dev/replica': 'dep1-0', 'berth.dev/vendor': 'gpux' } },
      status,
    });
    const seen: string[] = [];
    handle.onPhase((e) => seen.push(e.to));
    fake.pods.set('p', podObject({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }], initContainerStatuses: [{ name: 'model-download', state: { running: {} } }] }));
    await waitFor(() => handle.status().phase === 'downloading');
    fake.pods.set('p', podObject({
      phase: 'Running',
      conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'False' }],
      initContainerStatuses: [{ name: 'model-download', state: { terminated: { exitCode: 0 } } }],
      containerStatuses: [{ name: 'engine', restartCount: 0, state: { running: {} } }],
    }));
    await waitFor(() => handle.status().phase === 'initializing');
    fake.pods.set('p', podObject({
      phase: 'Running',
      conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }],
      initContainerStatuses: [{ name: 'model-download', state: { terminated: { exitCode: 0 } } }],
      containerStatuses: [{ name: 'engine', restartCount: 0, state: { running: {} } }],
    }));
    const ready = await handle.settled({ timeoutMs: 5000 });
    expect(ready.endpoint).toBe('http://berth-dep1-0.inference.svc.cluster.local:8000');
    expect(seen).toEqual(['downloading', 'initializing', 'ready']);
    const listCalls = fake.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/namespaces/inference/pods'));
    expect(listCalls[0]?.path).toContain('labelSelector=app.kubernetes.io%2Fmanaged-by%3Dberth%2Cberth.dev%2Fvendor%3Dgpux');

    // A new gateway process: a fresh runtime re-adopts the replica from the cluster.
    const restarted = createGpuxRuntime(options);
    closers.push(() => restarted.provisioner.close());
    const adopted = await restarted.provisioner.listReplicas(ctx, { deployment: 'accounts/acme/deployments/dep1' });
    expect(adopted.map((h) => h.replicaId)).toEqual(['dep1-0']);
    expect(adopted[0]?.spec.acceleratorCount).toBe(4);
    expect(adopted[0]?.status().phase).toBe('ready');
    expect(await restarted.provisioner.listReplicas(ctx, { deployment: 'accounts/acme/deployments/other' })).toEqual([]);

    await restarted.provisioner.stopReplica(ctx, 'dep1-0');
    const deletes = fake.requests.filter((r) => r.method === 'DELETE').map((r) => r.path.split('?')[0]);
    expect(deletes).toEqual([
      '/apis/apps/v1/namespaces/inference/deployments/berth-dep1-0',
      '/api/v1/namespaces/inference/services/berth-dep1-0',
    ]);
    expect(adopted[0]?.status().phase).toBe('stopped');
    await restarted.provisioner.stopReplica(ctx, 'dep1-0');
    expect(fake.requests.some((r) => r.method === 'PATCH' && r.path.includes('pods'))).toBe(false);
  });

  it('reports an unreachable API server as UNAVAILABLE', async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'gone', server: 'http://127.0.0.1:9', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'c', cluster: 'gone', user: 'u' }],
      currentContext: 'c',
    });
    const runtime = createGpuxRuntime({ kubeConfig, provisioner: { kind: 'kubernetes' } });
    closers.push(() => runtime.provisioner.close());
    await expect(
      runtime.provisioner.startReplica(systemContext('t'), {
        replicaId: 'x1',
        deployment: 'accounts/a/deployments/x',
        spec: { baseModel: 'accounts/a/models/m', acceleratorType: 'GPUX_L4_24GB', acceleratorCount: 1 },
      }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
