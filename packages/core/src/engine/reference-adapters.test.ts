import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceEngine, type ReferenceEngine } from './reference-engine.js';

let root: string;
const engines: ReferenceEngine[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'berth-adapters-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

async function adapterDir(name: string, weights: Uint8Array): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'adapter_config.json'), JSON.stringify({ r: 8, target_modules: ['q_proj'] }));
  await writeFile(join(dir, 'adapter_model.safetensors'), weights);
  return dir;
}

async function start(maxLoras = 2): Promise<ReferenceEngine> {
  const engine = await startReferenceEngine({ modelIds: ['base'], lora: { maxLoras } });
  engines.push(engine);
  return engine;
}

const post = (engine: ReferenceEngine, path: string, body: unknown) =>
  fetch(`${engine.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function answer(engine: ReferenceEngine, model: string): Promise<{ status: number; text: string }> {
  const response = await post(engine, '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'Tell me about harbors.' }], seed: 7 });
  const body = (await response.json()) as { choices?: { message: { content: string } }[] };
  return { status: response.status, text: body.choices?.[0]?.message.content ?? '' };
}

describe('reference engine LoRA adapters (vLLM routes)', () => {
  it('answers under a loaded adapter with output decided by its file bytes: two adapters and the base all differ', async () => {
    const engine = await start();
    const one = await adapterDir('one', new Uint8Array([1, 2, 3, 4]));
    const two = await adapterDir('two', new Uint8Array([4, 3, 2, 1]));
    const load = await post(engine, '/v1/load_lora_adapter', { lora_name: 'sql', lora_path: one });
    expect(load.status).toBe(200);
    expect(await load.text()).toBe("Success: LoRA adapter 'sql' added successfully.");
    expect((await post(engine, '/v1/load_lora_adapter', { lora_name: 'chat', lora_path: two })).status).toBe(200);

    const base = await answer(engine, 'base');
    const sql = await answer(engine, 'sql');
    const chat = await answer(engine, 'chat');
    expect([base.status, sql.status, chat.status]).toEqual([200, 200, 200]);
    expect(new Set([base.text, sql.text, chat.text]).size).toBe(3);
    expect((await answer(engine, 'sql')).text).toBe(sql.text);

    const models = (await (await fetch(`${engine.url}/v1/models`)).json()) as { data: { id: string; parent: string | null; root: string }[] };
    expect(models.data.map((m) => [m.id, m.parent])).toEqual([['base', null], ['sql', 'base'], ['chat', 'base']]);
    expect(engine.stats()).toMatchObject({ adapterLoads: 2, adapterUnloads: 0 });
  });

  it('answers alike for the same bytes under another name on another engine, and differently once a byte changes', async () => {
    const same = await adapterDir('same', new Uint8Array([9, 9, 9]));
    const again = await adapterDir('again', new Uint8Array([9, 9, 9]));
    const changed = await adapterDir('changed', new Uint8Array([9, 9, 8]));
    const a = await start();
    const b = await start();
    await post(a, '/v1/load_lora_adapter', { lora_name: 'x', lora_path: same });
    await post(b, '/v1/load_lora_adapter', { lora_name: 'x', lora_path: again });
    expect((await answer(a, 'x')).text).toBe((await answer(b, 'x')).text);
    await post(b, '/v1/unload_lora_adapter', { lora_name: 'x' });
    await post(b, '/v1/load_lora_adapter', { lora_name: 'x', lora_path: changed });
    expect((await answer(a, 'x')).text).not.toBe((await answer(b, 'x')).text);
  });

  it('refuses what vLLM refuses: a second load, a load past max_loras, a missing path, unloading an unknown adapter; a model after unload is 404', async () => {
    const engine = await start(1);
    const dir = await adapterDir('only', new Uint8Array([5]));
    expect((await post(engine, '/v1/load_lora_adapter', { lora_name: 'a', lora_path: dir })).status).toBe(200);
    const again = await post(engine, '/v1/load_lora_adapter', { lora_name: 'a', lora_path: dir });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: { message: string } }).error.message).toMatch(/already been loaded/);
    expect((await post(engine, '/v1/load_lora_adapter', { lora_name: 'b', lora_path: dir })).status).toBe(400);
    expect((await post(engine, '/v1/unload_lora_adapter', { lora_name: 'a' })).status).toBe(200);
    expect((await answer(engine, 'a')).status).toBe(404);
    expect((await post(engine, '/v1/load_lora_adapter', { lora_name: 'b', lora_path: join(root, 'absent') })).status).toBe(400);
    expect((await post(engine, '/v1/unload_lora_adapter', { lora_name: 'a' })).status).toBe(404);
    expect((await post(engine, '/v1/load_lora_adapter', { lora_name: 'c' })).status).toBe(400);
    expect(engine.stats()).toMatchObject({ adapterLoads: 1, adapterUnloads: 1 });
  });

  it('has no adapter routes without lora', async () => {
    const engine = await startReferenceEngine({ modelIds: ['base'] });
    engines.push(engine);
    expect((await post(engine, '/v1/load_lora_adapter', { lora_name: 'a', lora_path: 'x' })).status).toBe(404);
  });
});
