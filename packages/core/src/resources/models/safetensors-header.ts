/**
 * The header of a safetensors file, parsed and checked, never trusted:
 *
 * `[8 bytes: N, unsigned little-endian][N bytes: JSON header][data]`. The header is a JSON object whose
 * keys are tensor names (plus an optional `__metadata__` object of strings) and whose values are
 * `{dtype, shape, data_offsets: [begin, end]}`, offsets relative to the start of the data. A header is
 * accepted only when N is at least 2 and at most {@link maxSafetensorsHeaderBytes} and fits in the file,
 * the header is UTF-8 JSON (trailing spaces allowed, as writers pad it), every dtype is one of
 * {@link safetensorsDtypeBytes}, every shape is a list of non-negative integers, every tensor's byte
 * length is its element count times its dtype's size, and the tensors, sorted by offset, tile the data
 * exactly: the first starts at 0, each starts where the previous ends, the last ends at the end of the
 * file. Tensor names are 1–1024 printable characters.
 */

/** Bytes per element of each dtype a header may use (sub-byte dtypes are refused). */
export const safetensorsDtypeBytes: Readonly<Record<string, number>> = {
  BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1, F8_E8M0: 1,
  I16: 2, U16: 2, F16: 2, BF16: 2,
  I32: 4, U32: 4, F32: 4,
  I64: 8, U64: 8, F64: 8,
};

/** Largest header accepted (the reference implementation's own bound). */
export const maxSafetensorsHeaderBytes = 100 * 1024 * 1024;

const maxTensorNameLength = 1024;
const maxTensors = 1_000_000;

/** Why a file is not a valid safetensors file; `message` says what is wrong, without the file name. */
export class SafetensorsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SafetensorsError';
  }
}

export interface SafetensorsTensor {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Elements in the tensor (the product of its shape). */
  readonly elements: bigint;
}

/** What a checked header says about its file. */
export interface SafetensorsSummary {
  /** N, the header's length in bytes. */
  readonly headerBytes: number;
  readonly tensors: readonly SafetensorsTensor[];
  /** Elements over all tensors. */
  readonly parameterCount: bigint;
  /** Elements per dtype. */
  readonly elementsByDtype: Readonly<Record<string, bigint>>;
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * Reads N from the first 8 bytes of a file of `fileBytes` bytes and checks it: at least 2 (`{}`), at most
 * {@link maxSafetensorsHeaderBytes}, and within the file. Throws {@link SafetensorsError}.
 */
export function safetensorsHeaderLength(first8: Uint8Array, fileBytes: number): number {
  if (fileBytes < 8 || first8.byteLength < 8) throw new SafetensorsError('the file is shorter than the 8-byte header length');
  const view = new DataView(first8.buffer, first8.byteOffset, 8);
  const length = view.getBigUint64(0, true);
  if (length < 2n) throw new SafetensorsError(`the header length ${length} is too small for a JSON object`);
  if (length > BigInt(maxSafetensorsHeaderBytes)) throw new SafetensorsError(`the header length ${length} exceeds ${maxSafetensorsHeaderBytes} bytes`);
  if (length > BigInt(fileBytes - 8)) throw new SafetensorsError(`the header length ${length} runs past the end of the ${fileBytes}-byte file`);
  return Number(length);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function checkName(name: string): void {
  if (name.length === 0 || name.length > maxTensorNameLength) throw new SafetensorsError(`a tensor name must be 1 to ${maxTensorNameLength} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new SafetensorsError(`tensor name ${JSON.stringify(name.slice(0, 80))} contains control characters`);
}

function parseTensor(name: string, value: unknown): SafetensorsTensor & { begin: number; end: number } {
  const label = `tensor ${JSON.stringify(name.slice(0, 80))}`;
  if (!isRecord(value)) throw new SafetensorsError(`${label} is not an object`);
  const { dtype, shape, data_offsets: offsets } = value;
  if (typeof dtype !== 'string' || safetensorsDtypeBytes[dtype] === undefined) {
    throw new SafetensorsError(`${label} has dtype ${JSON.stringify(dtype)}; known: ${Object.keys(safetensorsDtypeBytes).join(', ')}`);
  }
  if (!Array.isArray(shape) || shape.length > 64 || !shape.every(isCount)) throw new SafetensorsError(`${label} has a shape that is not a list of non-negative integers`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !isCount(offsets[0]) || !isCount(offsets[1]) || offsets[0] > offsets[1]) {
    throw new SafetensorsError(`${label} has data_offsets that are not [begin, end] with 0 ≤ begin ≤ end`);
  }
  const elements = shape.reduce<bigint>((product, size: number) => product * BigInt(size), 1n);
  const expected = elements * BigInt(safetensorsDtypeBytes[dtype]!);
  const [begin, end] = offsets as [number, number];
  if (BigInt(end - begin) !== expected) {
    throw new SafetensorsError(`${label}: shape [${shape.join(', ')}] of ${dtype} needs ${expected} bytes, data_offsets span ${end - begin}`);
  }
  return { name, dtype, shape: shape as number[], elements, begin, end };
}

/**
 * Parses and checks the JSON header (the N bytes after the length) of a file of `fileBytes` bytes.
 * Throws {@link SafetensorsError} saying what is wrong.
 */
export function parseSafetensorsHeader(header: Uint8Array, fileBytes: number): SafetensorsSummary {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(header);
  } catch {
    throw new SafetensorsError('the header is not UTF-8');
  }
  if (!text.startsWith('{')) throw new SafetensorsError('the header does not start with "{"');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.trimEnd());
  } catch (error) {
    throw new SafetensorsError(`the header is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isRecord(parsed)) throw new SafetensorsError('the header is not a JSON object');
  const dataBytes = fileBytes - 8 - header.byteLength;
  let metadata: Record<string, string> = {};
  const tensors: (SafetensorsTensor & { begin: number; end: number })[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (name === '__metadata__') {
      if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) throw new SafetensorsError('__metadata__ must be an object of strings');
      metadata = value as Record<string, string>;
      continue;
    }
    checkName(name);
    if (tensors.length >= maxTensors) throw new SafetensorsError(`the header lists more than ${maxTensors} tensors`);
    tensors.push(parseTensor(name, value));
  }
  const ordered = [...tensors].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let position = 0;
  for (const tensor of ordered) {
    if (tensor.begin !== position) {
      const what = tensor.begin < position ? 'overlaps the tensor before it' : 'leaves a gap before it';
      throw new SafetensorsError(`tensor ${JSON.stringify(tensor.name.slice(0, 80))} starts at ${tensor.begin} and ${what} (expected ${position})`);
    }
    position = tensor.end;
  }
  if (position !== dataBytes) {
    throw new SafetensorsError(position > dataBytes
      ? `the tensors need ${position} bytes of data but the file holds ${dataBytes}`
      : `the file holds ${dataBytes} bytes of data but the tensors cover ${position}`);
  }
  const elementsByDtype: Record<string, bigint> = {};
  let parameterCount = 0n;
  for (const tensor of tensors) {
    elementsByDtype[tensor.dtype] = (elementsByDtype[tensor.dtype] ?? 0n) + tensor.elements;
    parameterCount += tensor.elements;
  }
  return {
    headerBytes: header.byteLength,
    tensors: tensors.map(({ name, dtype, shape, elements }) => ({ name, dtype, shape, elements })),
    parameterCount,
    elementsByDtype,
    metadata,
  };
}

/**
 * Checks a safetensors file as its bytes pass (an upload): {@link push} each chunk, {@link end} with the
 * total. Only the header is held (at most {@link maxSafetensorsHeaderBytes}); the data is counted, not
 * kept. `declaredBytes` is the file's size as announced, which the header must fit.
 */
export class SafetensorsStreamChecker {
  private readonly head: Uint8Array[] = [];
  private headBytes = 0;
  private headerLength: number | undefined;
  private summary: SafetensorsSummary | undefined;

  constructor(private readonly declaredBytes: number) {}

  /** Takes the next chunk; throws {@link SafetensorsError} as soon as the header is known to be bad. */
  push(chunk: Uint8Array): void {
    if (this.summary) return;
    const want = this.headerLength === undefined ? 8 : 8 + this.headerLength;
    if (this.headBytes >= want) return;
    const take = chunk.subarray(0, want - this.headBytes);
    this.head.push(take);
    this.headBytes += take.byteLength;
    if (this.headerLength === undefined && this.headBytes >= 8) {
      this.headerLength = safetensorsHeaderLength(this.joined(8), this.declaredBytes);
      const rest = chunk.subarray(take.byteLength);
      if (rest.byteLength > 0) this.push(rest);
      return;
    }
    if (this.headerLength !== undefined && this.headBytes >= 8 + this.headerLength) {
      this.summary = parseSafetensorsHeader(this.joined(8 + this.headerLength).subarray(8), this.declaredBytes);
      this.head.length = 0;
    }
  }

  /** The checked header; throws {@link SafetensorsError} when the file ended before it was whole. */
  end(): SafetensorsSummary {
    if (this.summary) return this.summary;
    throw new SafetensorsError(this.headerLength === undefined
      ? 'the file is shorter than the 8-byte header length'
      : `the file ends inside its ${this.headerLength}-byte header`);
  }

  private joined(length: number): Uint8Array {
    const out = new Uint8Array(length);
    let offset = 0;
    for (const part of this.head) {
      const piece = part.subarray(0, length - offset);
      out.set(piece, offset);
      offset += piece.byteLength;
      if (offset >= length) break;
    }
    return out;
  }
}
