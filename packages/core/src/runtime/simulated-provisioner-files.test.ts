import { afterEach, describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import type { ReplicaSpec } from '../ports/provisioner.js';
import { memoryModelFileSource } from '../testing/model-file-source.js';
import { simulatedProvisioner, type SimulatedProvisioner } from './simulated-provisioner.js';

const ctx = systemContext('test');
const spec = (extra: Partial<ReplicaSpec> = {}): ReplicaSpec => ({ baseModel: 'accounts/a/models/base', acceleratorType: 'GPUX_H100_80GB', acceleratorCount: 1, ...extra });
const weights = { 'config.json': '{"model_type":"llama"}', 'model.safetensors': new Uint8Array(200_000).fill(7) };

const provisioners: SimulatedProvisioner[] = [];
afterEach(async () => {
  await Promise.all(provisioners.splice(0).map((p) => p.close()));
});
function provisioner(): SimulatedProvisioner {
  const p = simulatedProvisioner({ delays: { schedulingMs: 1, downloadingMs: 1, initializingMs: 1 } });
  provisioners.push(p);
  return p;
}

async function chat(url: string, model: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
  });
  const body = (await response.json()) as { choices?: { message: { content: string } }[] };
  return { status: response.status, text: body.choices?.[0]?.message.content ?? '' };
}

describe('simulated replicas of uploaded models', () => {
  it('read every file of the weights (streamed) and become ready when they match what was recorded', async () => {
    const p = provisioner();
    const source = memoryModelFileSource('accounts/a/models/base', weights, { chunkBytes: 4096 });
    const handle = await p.startReplica(ctx, { replicaId: 'ok', deployment: 'accounts/a/deployments/d', spec: spec(), weights: source });
    expect((await handle.settled({ timeoutMs: 3000 })).phase).toBe('ready');
    expect(source.reads).toBe(2);
  });

  it('fail, naming the file, when a file is corrupt, has another size or is missing', async () => {
    const p = provisioner();
    const cases = [
      ['corrupt', { recorded: { 'model.safetensors': { sha256: '0'.repeat(64) } } }, /model file model\.safetensors of accounts\/a\/models\/base does not match its recorded SHA-256/],
      ['short', { recorded: { 'model.safetensors': { sizeBytes: 300_000 } } }, /model file model\.safetensors .* has 200000 bytes; 300000 were recorded/],
      ['long', { recorded: { 'config.json': { sizeBytes: 3 } } }, /model file config\.json .* has more than the 3 bytes recorded/],
      ['missing', { missing: ['config.json'] }, /model file config\.json of accounts\/a\/models\/base is missing from the blob store/],
    ] as const;
    for (const [id, options, message] of cases) {
      const source = memoryModelFileSource('accounts/a/models/base', weights, options);
      const handle = await p.startReplica(ctx, { replicaId: id, deployment: 'accounts/a/deployments/d', spec: spec(), weights: source });
      const status = await handle.settled({ timeoutMs: 3000 });
      expect(status.phase, id).toBe('failed');
      expect(status.message, id).toMatch(/^cannot load the weights: /);
      expect(status.message, id).toMatch(message);
    }
  });
});

describe('simulated replicas with add-ons', () => {
  it('load an add-on from its files, answer under it by its bytes, unload it, and list what is loaded', async () => {
    const p = provisioner();
    const handle = await p.startReplica(ctx, { replicaId: 'lora', deployment: 'accounts/a/deployments/d', spec: spec({ enableAddons: true, numPeftDeviceCached: 2 }) });
    const { endpoint } = await handle.settled({ timeoutMs: 3000 });
    const adapter = (bytes: number[]) => ({ 'adapter_config.json': '{"r":8}', 'adapter_model.safetensors': new Uint8Array(bytes) });
    await p.adapters.load(ctx, 'lora', { name: 'accounts/a/models/one', source: memoryModelFileSource('accounts/a/models/one', adapter([1, 2])) });
    await p.adapters.load(ctx, 'lora', { name: 'accounts/a/models/two', source: memoryModelFileSource('accounts/a/models/two', adapter([2, 1])) });
    expect(await p.adapters.loaded(ctx, 'lora')).toEqual(['accounts/a/models/one', 'accounts/a/models/two']);
    const base = await chat(endpoint!, 'accounts/a/models/base');
    const one = await chat(endpoint!, 'accounts/a/models/one');
    const two = await chat(endpoint!, 'accounts/a/models/two');
    expect(new Set([base.text, one.text, two.text]).size).toBe(3);
    await p.adapters.unload(ctx, 'lora', 'accounts/a/models/one');
    expect((await chat(endpoint!, 'accounts/a/models/one')).status).toBe(404);
    expect(p.engineOf('lora')?.stats()).toMatchObject({ adapterLoads: 2, adapterUnloads: 1 });
  });

  it('refuse a corrupt add-on naming its file, and a load on a replica that is not ready', async () => {
    const p = provisioner();
    const handle = await p.startReplica(ctx, { replicaId: 'bad', deployment: 'accounts/a/deployments/d', spec: spec({ enableAddons: true }) });
    await handle.settled({ timeoutMs: 3000 });
    const source = memoryModelFileSource('accounts/a/models/x', { 'adapter_model.safetensors': 'abc' }, { recorded: { 'adapter_model.safetensors': { sha256: 'f'.repeat(64) } } });
    await expect(p.adapters.load(ctx, 'bad', { name: 'accounts/a/models/x', source })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/model file adapter_model\.safetensors of accounts\/a\/models\/x does not match/),
    });
    expect(await p.adapters.loaded(ctx, 'bad')).toEqual([]);
    await expect(p.adapters.load(ctx, 'absent', { name: 'n' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
