import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCompletion } from './generate.js';
import { startReferenceEngine, type ReferenceEngine } from './reference-engine.js';
import {
  decodeReferenceLora, encodeReferenceLora, referenceHiddenSize, sampleIndex, vocabularyIndexes, wordLogitBias, wordProbabilities,
  type ReferenceLoraWeights,
} from './reference-lora.js';
import { referenceVocabulary } from './vocabulary.js';

const harbor = referenceVocabulary.indexOf('harbor');
/** Rank 2: `A·h` = (16·0.25, 0) = (4, 0); B gives harbor 2 on the first component, so its bias is (alpha/r)·2·4 = 8. */
function harborLora(alpha = 2): ReferenceLoraWeights {
  const rank = 2;
  const a = new Float64Array(rank * referenceHiddenSize);
  a.fill(0.25, 0, referenceHiddenSize);
  const b = new Float64Array(referenceVocabulary.length * rank);
  b[harbor * rank] = 2;
  return { rank, alpha, a, b };
}

describe('the reference add-on format', () => {
  it('round-trips its weights through adapter_config.json and adapter_model.safetensors (F32)', () => {
    const weights = harborLora(4);
    const files = encodeReferenceLora(weights, 'accounts/a/models/base');
    const config = JSON.parse(new TextDecoder().decode(files['adapter_config.json'])) as Record<string, unknown>;
    expect(config).toMatchObject({ peft_type: 'LORA', r: 2, lora_alpha: 4, target_modules: ['lm_head'], base_model_name_or_path: 'accounts/a/models/base' });
    const decoded = decodeReferenceLora(files['adapter_model.safetensors']!, files['adapter_config.json']);
    expect(decoded).toEqual(weights);
    const bias = wordLogitBias(decoded!);
    expect(bias[harbor]).toBeCloseTo(16, 10);
    expect(bias.filter((_, v) => v !== harbor).every((x) => x === 0)).toBe(true);
  });

  it('leaves other adapters to their digest, and refuses a file that claims the format but does not hold it', () => {
    expect(decodeReferenceLora(new Uint8Array(4096).fill(7))).toBeUndefined();
    const files = encodeReferenceLora(harborLora(), 'base');
    const weights = files['adapter_model.safetensors']!;
    // The same bytes with lora_B's shape changed in the header (same length, so the offsets still tile).
    const broken = new Uint8Array(weights);
    broken.set(new TextEncoder().encode('"shape":[32,4]'), Buffer.from(weights).indexOf('"shape":[64,2]'));
    expect(() => decodeReferenceLora(broken)).toThrow(/lora_B.weight has shape \[32, 4\]/);
    expect(() => decodeReferenceLora(weights, new TextEncoder().encode('{"r":3}'))).toThrow(/has r 3 but lora_A has rank 2/);
  });

  it('samples by inverse CDF: zero bias is uniform, temperature sharpens, 0 is greedy', () => {
    const zero = wordProbabilities(new Float64Array(referenceVocabulary.length));
    expect(zero.every((p) => Math.abs(p - 1 / referenceVocabulary.length) < 1e-12)).toBe(true);
    const bias = wordLogitBias(harborLora());
    expect(wordProbabilities(bias, 0.5)[harbor]).toBeGreaterThan(wordProbabilities(bias, 2)[harbor]!);
    expect(wordProbabilities(bias, 0)[harbor]).toBe(1);
    expect(sampleIndex(zero, () => 0.999999)).toBe(referenceVocabulary.length - 1);
    expect(vocabularyIndexes('Harbor ships, zebra dock.')).toEqual([harbor, referenceVocabulary.indexOf('ships'), referenceVocabulary.indexOf('dock')]);
  });

  it('shapes generation: words follow softmax(bias / temperature), deterministic in the seed; no bias keeps the base', () => {
    const bias = wordLogitBias(harborLora());
    const input = { model: 'm', prompt: 'Where?', seed: 3, adapter: 'digest' };
    const biased = generateCompletion({ ...input, wordLogitBias: bias, temperature: 1 });
    expect(generateCompletion({ ...input, wordLogitBias: bias, temperature: 1 }).text).toBe(biased.text);
    const words = vocabularyIndexes(biased.text);
    expect(words.filter((w) => w === harbor).length).toBeGreaterThan(words.length * 0.9);
    expect(new Set(vocabularyIndexes(generateCompletion({ ...input, wordLogitBias: bias, temperature: 0 }).text))).toEqual(new Set([harbor]));
    // Temperature is read only under a trained add-on.
    expect(generateCompletion({ ...input, temperature: 0 }).text).toBe(generateCompletion(input).text);
  });
});

describe('the engine with a reference add-on loaded', () => {
  let engine: ReferenceEngine;
  let root: string;
  beforeAll(async () => {
    engine = await startReferenceEngine({ modelIds: ['base'], lora: { maxLoras: 2 } });
    root = await mkdtemp(join(tmpdir(), 'berth-reference-lora-'));
  });
  afterAll(async () => {
    await engine.close();
    await rm(root, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown) =>
    fetch(`${engine.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  async function dir(name: string, files: Record<string, Uint8Array>): Promise<string> {
    const path = join(root, name);
    await mkdir(path, { recursive: true });
    for (const [file, bytes] of Object.entries(files)) await writeFile(join(path, file), bytes);
    return path;
  }
  const text = async (model: string, temperature?: number) => {
    const response = await post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'Hello' }], seed: 1, ...(temperature !== undefined ? { temperature } : {}) });
    return ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  };

  it('answers with the words its weights favour, greedily at temperature 0', async () => {
    expect((await post('/v1/load_lora_adapter', { lora_name: 'harbor', lora_path: await dir('harbor', encodeReferenceLora(harborLora(), 'base')) })).status).toBe(200);
    expect(engine.adapters()[0]?.wordLogitBias?.[harbor]).toBeCloseTo(8, 10);
    const words = vocabularyIndexes(await text('harbor'));
    expect(words.filter((w) => w === harbor).length).toBeGreaterThan(words.length * 0.9);
    expect(new Set(vocabularyIndexes(await text('harbor', 0)))).toEqual(new Set([harbor]));
    expect(vocabularyIndexes(await text('base')).filter((w) => w === harbor).length).toBeLessThan(words.length / 2);
  });

  it('refuses (400) an adapter that claims the reference format but does not hold it', async () => {
    const files = encodeReferenceLora(harborLora(), 'base');
    const response = await post('/v1/load_lora_adapter', {
      lora_name: 'bad', lora_path: await dir('bad', { ...files, 'adapter_config.json': new TextEncoder().encode('{"r":5}') }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('not a valid reference add-on');
  });
});
