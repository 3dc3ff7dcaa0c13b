import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildSafetensors } from '../../testing/safetensors-builder.js';
import {
  maxSafetensorsHeaderBytes, parseSafetensorsHeader, SafetensorsError, SafetensorsStreamChecker, safetensorsHeaderLength,
} from './safetensors-header.js';

const tiny = [
  { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [16, 8] },
  { name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'BF16', shape: [8, 8] },
  { name: 'lm_head.bias', dtype: 'F32', shape: [16] },
];

/** Parses a whole file in one go. */
function parseFile(file: Uint8Array) {
  const length = safetensorsHeaderLength(file.subarray(0, 8), file.byteLength);
  return parseSafetensorsHeader(file.subarray(8, 8 + length), file.byteLength);
}

/** A file made of an 8-byte length, the given header text and `dataBytes` zero bytes. */
function rawFile(header: string, dataBytes: number, declaredLength?: bigint): Uint8Array {
  const json = new TextEncoder().encode(header);
  const out = new Uint8Array(8 + json.byteLength + dataBytes);
  new DataView(out.buffer).setBigUint64(0, declaredLength ?? BigInt(json.byteLength), true);
  out.set(json, 8);
  return out;
}

function failure(file: Uint8Array): string {
  try {
    parseFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(SafetensorsError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('safetensors header', () => {
  it('parses a valid file: tensors, parameter count, elements per dtype, metadata', () => {
    const summary = parseFile(buildSafetensors(tiny, { metadata: { format: 'pt' } }));
    expect(summary.tensors.map((t) => t.name)).toEqual(tiny.map((t) => t.name));
    expect(summary.parameterCount).toBe(128n + 64n + 16n);
    expect(summary.elementsByDtype).toEqual({ BF16: 192n, F32: 16n });
    expect(summary.metadata).toEqual({ format: 'pt' });
  });

  it('accepts an empty header and a zero-element tensor', () => {
    expect(parseFile(rawFile('{}', 0)).tensors).toEqual([]);
    expect(parseFile(rawFile('{"e":{"dtype":"F16","shape":[0,4],"data_offsets":[0,0]}}', 0)).parameterCount).toBe(0n);
  });

  it.each([
    ['a header length past the file', rawFile('{}', 0, 1000n), 'runs past the end'],
    ['a header length above the bound', rawFile('{}', 0, BigInt(maxSafetensorsHeaderBytes) + 1n), 'exceeds'],
    ['a header length of 2^64-1', rawFile('{}', 0, 0xffffffffffffffffn), 'exceeds'],
    ['a header length below 2', rawFile('{}', 0, 1n), 'too small'],
    ['a file shorter than 8 bytes', new Uint8Array(5), 'shorter than the 8-byte'],
    ['a header that is not JSON', rawFile('{"a": ', 0), 'not JSON'],
    ['a header that is a list', rawFile('[1,2]', 0), 'does not start with "{"'],
    ['a header that is not UTF-8', (() => { const f = rawFile('{"\u00ff":1}', 0); f[10] = 0xff; f[11] = 0xfe; return f; })(), 'not UTF-8'],
    ['an unknown dtype', rawFile('{"t":{"dtype":"Q4","shape":[2],"data_offsets":[0,2]}}', 2), 'dtype "Q4"'],
    ['a negative dimension', rawFile('{"t":{"dtype":"U8","shape":[-2],"data_offsets":[0,2]}}', 2), 'shape'],
    ['a fractional dimension', rawFile('{"t":{"dtype":"U8","shape":[1.5],"data_offsets":[0,2]}}', 2), 'shape'],
    ['a shape that disagrees with the offsets', rawFile('{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}', 4), 'needs 8 bytes'],
    ['offsets past the data', rawFile('{"t":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}}', 4), 'tensors need 8 bytes'],
    ['data after the last tensor', rawFile('{"t":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}', 4), 'holds 4 bytes'],
    ['a gap between tensors', rawFile('{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[3,5]}}', 5), 'gap'],
    ['overlapping tensors', rawFile('{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}', 3), 'overlaps'],
    ['reversed offsets', rawFile('{"t":{"dtype":"U8","shape":[0],"data_offsets":[2,0]}}', 2), 'data_offsets'],
    ['an empty tensor name', rawFile('{"":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', 1), 'tensor name'],
    ['a control character in a name', rawFile('{"a\\u0001":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', 1), 'control characters'],
    ['metadata that is not strings', rawFile('{"__metadata__":{"a":1}}', 0), '__metadata__'],
    ['a huge shape product', rawFile('{"t":{"dtype":"F64","shape":[9007199254740991,9007199254740991],"data_offsets":[0,8]}}', 8), 'needs'],
  ])('refuses %s', (_what, file, message) => {
    expect(failure(file)).toContain(message);
  });

  it('never throws anything but SafetensorsError on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      try {
        parseFile(bytes);
      } catch (error) {
        expect(error).toBeInstanceOf(SafetensorsError);
      }
    }), { numRuns: 500 });
  });

  it('never throws anything but SafetensorsError on arbitrary JSON headers', () => {
    fc.assert(fc.property(fc.json(), fc.nat(64), (header, dataBytes) => {
      try {
        parseFile(rawFile(header, dataBytes));
      } catch (error) {
        expect(error).toBeInstanceOf(SafetensorsError);
      }
    }), { numRuns: 500 });
  });

  it('accepts every file the builder makes, with its element count', () => {
    const tensor = fc.record({
      dtype: fc.constantFrom('U8', 'F16', 'BF16', 'F32', 'I64'),
      shape: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
    });
    fc.assert(fc.property(fc.array(tensor, { maxLength: 6 }), (specs) => {
      const tensors = specs.map((t, i) => ({ name: `t${i}`, ...t }));
      const expected = tensors.reduce((sum, t) => sum + BigInt(t.shape.reduce((a, b) => a * b, 1)), 0n);
      expect(parseFile(buildSafetensors(tensors)).parameterCount).toBe(expected);
    }), { numRuns: 200 });
  });
});

describe('SafetensorsStreamChecker', () => {
  const file = buildSafetensors(tiny);

  it.each([1, 3, 7, 8, 9, 64, file.byteLength])('checks a file pushed in chunks of %i bytes', (size) => {
    const checker = new SafetensorsStreamChecker(file.byteLength);
    for (let i = 0; i < file.byteLength; i += size) checker.push(file.subarray(i, i + size));
    expect(checker.end().parameterCount).toBe(208n);
  });

  it('fails on the chunk that completes a bad header length, before the data arrives', () => {
    const bad = rawFile('{}', 100, 5000n);
    const checker = new SafetensorsStreamChecker(bad.byteLength);
    expect(() => checker.push(bad.subarray(0, 8))).toThrow('runs past the end');
  });

  it('fails at the end when the file stopped inside its header', () => {
    const checker = new SafetensorsStreamChecker(file.byteLength);
    checker.push(file.subarray(0, 20));
    expect(() => checker.end()).toThrow('ends inside its');
  });

  it('checks the offsets against the announced size', () => {
    const checker = new SafetensorsStreamChecker(file.byteLength + 4);
    expect(() => checker.push(file)).toThrow('holds');
  });
});
