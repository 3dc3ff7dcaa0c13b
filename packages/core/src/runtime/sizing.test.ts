import { describe, expect, it } from 'vitest';
import { deriveEngineArgs, renderEngineArgv } from './engine-args.js';
import { bytesPerWeight, kvCacheBytesPerElement, precisionEngineSettings, precisions } from './precision.js';
import { checkAcceleratorCount, estimateAcceleratorCount, parseParameterCount } from './sizing.js';
import type { AcceleratorTypeInfo } from '../ports/accelerator-runtime.js';

const a80: AcceleratorTypeInfo = {
  type: 'TEST_80GB',
  vendor: 'test',
  memoryGiB: 80,
  supportedPrecisions: ['BF16'],
  generation: 1,
  generationName: 'test',
  maxAcceleratorsPerReplica: 8,
};

describe('precision facts', () => {
  it('gives every precision a byte width and engine settings', () => {
    for (const p of precisions) {
      expect(bytesPerWeight(p)).toBeGreaterThan(0);
      expect([1, 2]).toContain(kvCacheBytesPerElement(p));
      expect(precisionEngineSettings(p).dtype).toMatch(/float16|bfloat16/);
    }
    expect(bytesPerWeight('BF16')).toBe(2);
    expect(bytesPerWeight('PRECISION_UNSPECIFIED')).toBe(2);
    expect(bytesPerWeight('FP8')).toBe(1);
    expect(bytesPerWeight('FP8_KV')).toBe(2);
    expect(kvCacheBytesPerElement('FP8_KV')).toBe(1);
    expect(bytesPerWeight('FP4')).toBeCloseTo(0.5625);
    expect(precisionEngineSettings('NF4').quantization).toBe('bitsandbytes_nf4');
  });
});

describe('sizing', () => {
  it('follows the documented formula', () => {
    const e = estimateAcceleratorCount(a80, { parameterCount: '70000000000', precision: 'BF16', contextLength: 8192 });
    expect(e.weightBytes).toBe(140e9);
    expect(e.overheadBytes).toBeCloseTo(14e9);
    expect(e.kvCacheBytes).toBeCloseTo(8192 * 2 * 2 * 0.3 * Math.sqrt(70e9));
    expect(e.minimumAccelerators).toBe(3);
    expect(e.acceleratorCount).toBe(4);
    expect(e.contextLength).toBe(8192);
  });

  it('defaults the context length and rounds up to powers of two', () => {
    expect(estimateAcceleratorCount(a80, { parameterCount: '7000000000' }).contextLength).toBe(8192);
    expect(estimateAcceleratorCount(a80, { parameterCount: '7000000000', contextLength: 0 }).acceleratorCount).toBe(1);
    const counts = ['1', '40000000000', '70000000000', '120000000000', '250000000000'].map(
      (p) => estimateAcceleratorCount(a80, { parameterCount: p }).acceleratorCount,
    );
    expect(counts).toEqual([1, 2, 4, 4, 8]);
  });

  it('refuses models that do not fit on 8 accelerators, naming the type', () => {
    expect(() => estimateAcceleratorCount(a80, { parameterCount: '405000000000' })).toThrow(/TEST_80GB/);
    expect(() => estimateAcceleratorCount({ ...a80, maxAcceleratorsPerReplica: 4 }, { parameterCount: '250000000000' })).toThrow(
      /more than 4 × TEST_80GB/,
    );
  });

  it('parses int64 strings strictly', () => {
    expect(parseParameterCount('9223372036854775807')).toBeGreaterThan(9e18);
    for (const bad of ['', '0', '-1', '1e9', ' 5', '12345678901234567890']) expect(() => parseParameterCount(bad)).toThrow(/parameterCount/);
  });

  it('checks explicit counts', () => {
    expect(() => checkAcceleratorCount(a80, 3, { parameterCount: '1000' })).toThrow(/one of 1, 2, 4, 8/);
    expect(() => checkAcceleratorCount(a80, 2, { parameterCount: '70000000000' })).toThrow(/too small/);
    expect(checkAcceleratorCount(a80, 2, { parameterCount: '70000000000', disableDeploymentSizeValidation: true })).toBeUndefined();
    expect(checkAcceleratorCount(a80, 8, { parameterCount: '70000000000' })?.acceleratorCount).toBe(4);
  });
});

describe('engine arguments', () => {
  const base = { baseModel: 'accounts/a/models/m', acceleratorType: 'TEST_80GB', acceleratorCount: 2 } as const;

  it('derives a plain launch', () => {
    const args = deriveEngineArgs(base);
    expect(args).toEqual({
      model: 'accounts/a/models/m',
      servedModelName: 'accounts/a/models/m',
      tensorParallelSize: 2,
      dtype: 'bfloat16',
      maxModelLen: 8192,
      port: 8000,
      extraArgs: [],
    });
    expect(renderEngineArgv(args)).toEqual([
      '--model', 'accounts/a/models/m', '--served-model-name', 'accounts/a/models/m', '--tensor-parallel-size', '2',
      '--dtype', 'bfloat16', '--max-model-len', '8192', '--host', '0.0.0.0', '--port', '8000',
    ]);
  });

  it('derives quantization, context, speculation and LoRA', () => {
    const args = deriveEngineArgs({
      ...base,
      precision: 'FP8_AR',
      maxContextLength: 0,
      modelContextLength: 131072,
      ngramSpeculationLength: 4,
      draftTokenCount: 6,
      enableAddons: true,
    });
    expect(args.quantization).toBe('fp8');
    expect(args.maxModelLen).toBe(131072);
    expect(args.speculative).toEqual({ method: 'ngram', promptLookupMax: 4, numSpeculativeTokens: 6 });
    expect(args.lora).toEqual({ maxLoras: 4 });
    const argv = renderEngineArgv(args).join(' ');
    expect(argv).toContain('--fp8-all-reduce');
    expect(argv).toContain('--speculative-config {"method":"ngram","prompt_lookup_max":4,"num_speculative_tokens":6}');
    expect(argv).toContain('--enable-lora --max-loras 4');
    const draft = deriveEngineArgs({ ...base, draftModel: 'accounts/a/models/d', ngramSpeculationLength: 4, maxContextLength: 2048 });
    expect(draft.speculative).toEqual({ method: 'draft_model', model: 'accounts/a/models/d', numSpeculativeTokens: 4 });
    expect(draft.maxModelLen).toBe(2048);
  });
});
