import {
  acceleratorRuntimesToken,
  imageEnginesToken,
  fp4Precisions,
  fp8Precisions,
  type AcceleratorRuntime,
  type Binder,
  type ImageEngine,
  type SimulatedProvisioner,
} from '@berth/core';
import { describeRuntimeContract, memoryModelFileSource } from '@berth/core/testing';
import { fetchPlanOf, modelFetcherScript, renderKubernetesManifests, uploadedWeightsPath } from '@berth/runtime-kit';
import { sglangAdapterApi } from '@berth/core';
import { describe, expect, it } from 'vitest';
import { createGpuyRuntime, gpuyAcceleratorTypes, gpuyRuntime } from './index.js';

const fast = { kind: 'simulated', delays: { schedulingMs: 5, downloadingMs: 5, initializingMs: 5 } } as const;

describeRuntimeContract('gpuy (simulated)', () => createGpuyRuntime({ provisioner: fast }), {
  injectFailure: (runtime) => (runtime.provisioner as SimulatedProvisioner).injectFailures({ failNextReplicas: 1 }),
});

describe('GPUY catalogue', () => {
  const supports = (type: string) => gpuyAcceleratorTypes.find((t) => t.type === type)?.supportedPrecisions ?? [];

  it('declares the three GPUY types with their memory and generations', () => {
    expect(gpuyAcceleratorTypes.map((t) => [t.type, t.memoryGiB, t.generation])).toEqual([
      ['GPUY_MI300X_192GB', 192, 1],
      ['GPUY_MI325X_256GB', 256, 1],
      ['GPUY_MI350X_288GB', 288, 2],
    ]);
  });

  it('follows the precision table', () => {
    for (const type of ['GPUY_MI300X_192GB', 'GPUY_MI325X_256GB', 'GPUY_MI350X_288GB']) {
      expect(supports(type)).toEqual(expect.arrayContaining(['FP16', 'BF16', ...fp8Precisions]));
      expect(supports(type)).not.toContain('NF4');
    }
    expect(supports('GPUY_MI300X_192GB').filter((p) => p.startsWith('FP4'))).toEqual([]);
    expect(supports('GPUY_MI325X_256GB').filter((p) => p.startsWith('FP4'))).toEqual([]);
    expect(supports('GPUY_MI350X_288GB')).toEqual(expect.arrayContaining([...fp4Precisions]));
  });

  it('fits a 70B model on one MI300X at FP8 and rejects FP4 there', () => {
    const runtime = createGpuyRuntime();
    expect(runtime.estimateSize({ acceleratorType: 'GPUY_MI300X_192GB', precision: 'FP8', parameterCount: '70000000000' }).acceleratorCount).toBe(1);
    expect(runtime.estimateSize({ acceleratorType: 'GPUY_MI300X_192GB', precision: 'BF16', parameterCount: '405000000000' }).acceleratorCount).toBe(8);
    expect(() => runtime.validate({ acceleratorType: 'GPUY_MI300X_192GB', precision: 'FP4' })).toThrow(/FP4.*GPUY_MI300X_192GB/);
  });
});

describe('GPUY launch specs and manifests', () => {
  it('uses the GPUY device resource, visibility variable and node label', () => {
    const runtime = createGpuyRuntime({ image: 'registry.example/gpuy-engine:2', launch: { env: { EXTRA: '1' } } });
    const spec = {
      baseModel: 'accounts/a/models/big',
      acceleratorType: 'GPUY_MI350X_288GB',
      acceleratorCount: 2,
      precision: 'FP4_MX_MOE',
      ngramSpeculationLength: 3,
    } as const;
    const launch = runtime.renderLaunchSpec(spec);
    expect(launch.resources).toEqual({ 'gpuy.example/gpu': 2 });
    expect(launch.env).toEqual({ EXTRA: '1', GPUY_VISIBLE_DEVICES: '0,1' });
    expect(launch.nodeSelector).toEqual({ 'gpuy.example/accelerator-type': 'GPUY_MI350X_288GB' });
    expect(launch.engineArgs.quantization).toBe('mxfp4');
    expect(launch.engineArgs.speculative).toEqual({ method: 'ngram', promptLookupMax: 3, numSpeculativeTokens: 4 });
    const { deployment, service } = renderKubernetesManifests(
      launch,
      { replicaId: 'big-0', deployment: 'accounts/a/deployments/big', spec },
      { namespace: 'ml' },
    );
    expect(deployment.metadata).toMatchObject({ name: 'berth-big-0', namespace: 'ml', labels: { 'berth.dev/vendor': 'gpuy' } });
    const podSpec = (deployment.spec?.template as { spec: { tolerations: unknown[]; containers: { image: string }[] } }).spec;
    expect(podSpec.tolerations).toEqual([{ key: 'gpuy.example/gpu', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(podSpec.containers[0]?.image).toBe('registry.example/gpuy-engine:2');
    expect(service.kind).toBe('Service');
  });
});

describe('GPUY replicas of an uploaded model with add-ons', () => {
  const weights = memoryModelFileSource('accounts/a/models/up', { 'config.json': '{}', 'model-00001-of-00001.safetensors': new Uint8Array(64) });
  const spec = { baseModel: 'accounts/a/models/up', acceleratorType: 'GPUY_MI300X_192GB', acceleratorCount: 1, enableAddons: true, numPeftDeviceCached: 6 } as const;

  it('downloads the files in an init container and starts the engine on them, with run-time LoRA enabled', () => {
    const runtime = createGpuyRuntime();
    const path = uploadedWeightsPath({});
    const launch = runtime.renderLaunchSpec({ ...spec, checkpointUri: path });
    const plan = fetchPlanOf(weights, path, 'http://gateway.berth:8080', 600);
    const { deployment } = renderKubernetesManifests(launch, { replicaId: 'up-0', deployment: 'accounts/a/deployments/up', spec, weights }, { namespace: 'ml', gatewayUrl: 'http://gateway.berth:8080' }, plan);
    type Container = { name: string; command?: string[]; args?: string[]; env?: { name: string; value: string }[]; resources?: unknown };
    const pod = (deployment.spec?.template as unknown as { spec: { initContainers: Container[]; containers: Container[] } }).spec;
    expect(pod.initContainers.map((c) => [c.name, c.command?.at(-1)])).toEqual([['model-download', 'once']]);
    const planEnv = pod.initContainers[0]!.env!.find((e) => e.name === 'BERTH_FETCH_PLAN')!.value;
    expect(JSON.parse(planEnv)).toMatchObject({ dir: '/models/weights', files: [{ path: 'config.json', size: 2 }, { path: 'model-00001-of-00001.safetensors', size: 64 }] });
    const engine = pod.containers[0]!;
    expect(engine.resources).toEqual({ limits: { 'gpuy.example/gpu': 1 }, requests: { 'gpuy.example/gpu': 1 } });
    expect(engine.args!.join(' ')).toMatch(/^--model \/models\/weights --served-model-name accounts\/a\/models\/up .* --enable-lora --max-loras 6 --max-cpu-loras 6 --max-lora-rank 64/);
    expect(engine.env).toEqual(expect.arrayContaining([{ name: 'GPUY_VISIBLE_DEVICES', value: '0' }, { name: 'VLLM_ALLOW_RUNTIME_LORA_UPDATING', value: 'True' }]));
    expect(pod.containers[1]).toMatchObject({ name: 'addon-fetcher', command: ['python3', '-c', modelFetcherScript, 'serve', '8081'] });
  });

  it('takes another engine’s adapter routes through the launch profile (SGLang)', () => {
    const launch = createGpuyRuntime({ launch: { adapterApi: sglangAdapterApi } }).renderLaunchSpec(spec);
    expect(launch.adapterApi).toEqual(sglangAdapterApi);
    expect(Object.keys(launch.env)).not.toContain('VLLM_ALLOW_RUNTIME_LORA_UPDATING');
    expect(createGpuyRuntime().renderLaunchSpec({ ...spec, enableAddons: false }).adapterApi).toBeUndefined();
  });
});

describe('gpuyRuntime plugin', () => {
  it('has id runtime-gpuy and contributes a gpuy runtime', () => {
    const plugin = gpuyRuntime();
    expect(plugin.id).toBe('runtime-gpuy');
    const contributed: AcceleratorRuntime[] = [];
    const engines: ImageEngine[] = [];
    const binder: Binder = {
      bindValue: () => undefined,
      bind: () => undefined,
      contribute: ((token: unknown, value: unknown) => {
        if (token === imageEnginesToken) return void engines.push(value as ImageEngine);
        expect(token).toBe(acceleratorRuntimesToken);
        contributed.push(value as AcceleratorRuntime);
      }) as Binder['contribute'],
    };
    plugin.register(binder);
    expect(contributed.map((r) => r.vendor)).toEqual(['gpuy']);
    // The simulated pool serves the reference image engine.
    expect(engines.map((e) => e.name)).toEqual(['reference']);
  });
});
