import { safetensorsDtypeBytes } from '../resources/models/safetensors-header.js';

/** Builds a valid safetensors file (for tests and examples): tensors in order, data filled by `fill`. */
export function buildSafetensors(
  tensors: readonly { name: string; dtype: string; shape: readonly number[] }[],
  options: { metadata?: Record<string, string>; fill?: (index: number) => number } = {},
): Uint8Array {
  const header: Record<string, unknown> = {};
  if (options.metadata) header.__metadata__ = options.metadata;
  let offset = 0;
  for (const tensor of tensors) {
    const bytes = tensor.shape.reduce((a, b) => a * b, 1) * (safetensorsDtypeBytes[tensor.dtype] ?? 1);
    header[tensor.name] = { dtype: tensor.dtype, shape: tensor.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.byteLength / 8) * 8;
  const out = new Uint8Array(8 + padded + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(padded), true);
  out.fill(0x20, 8, 8 + padded);
  out.set(json, 8);
  const fill = options.fill ?? ((i: number) => (i * 31 + 7) & 0xff);
  for (let i = 0; i < offset; i += 1) out[8 + padded + i] = fill(i);
  return out;
}
