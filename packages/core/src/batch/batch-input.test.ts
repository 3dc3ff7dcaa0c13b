import { describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import { MemoryStorage } from '../storage-memory/index.js';
import { inputLines, jsonlLines, selectedRows } from './batch-input.js';

const ctx = systemContext('batch-input-test');

async function* chunksOf(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('batch input', () => {
  it('splits JSONL arriving in chunks of any size into trimmed non-blank lines, characters cut between chunks included', async () => {
    const text = '{"a": "é€𝄞"}\n\n  {"b": 2}  \r\n\n{"c": "ü"}';
    const bytes = new TextEncoder().encode(text);
    for (const size of [1, 2, 3, 5, 7, 64, bytes.byteLength]) {
      expect(await collect(jsonlLines(chunksOf(bytes, size))), `chunks of ${size} bytes`).toEqual(['{"a": "é€𝄞"}', '{"b": 2}', '{"c": "ü"}']);
    }
    expect(await collect(jsonlLines(chunksOf(new Uint8Array(0), 4)))).toEqual([]);
    expect(await collect(jsonlLines(chunksOf(new TextEncoder().encode('x\n'), 4)))).toEqual(['x']);
  });

  it('pulls the next chunk only when the lines of the previous one are taken', async () => {
    let pulled = 0;
    async function* counted(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 100; i += 1) {
        pulled += 1;
        yield new TextEncoder().encode(`{"row": ${i}}\n`);
      }
    }
    const lines = jsonlLines(counted());
    await lines.next();
    await lines.next();
    expect(pulled).toBe(2);
    await lines.return(undefined);
  });

  it('reads the dataset\'s .jsonl files in name order and numbers rows across them, skipping the done ones', async () => {
    const storage = new MemoryStorage();
    const put = (file: string, text: string) => storage.blobs.put(ctx, `datasets/acme/datasets/in/${file}`, new TextEncoder().encode(text), 'application/jsonl');
    await put('b.jsonl', 'r3\nr4\n');
    await put('a.jsonl', 'r1\n\nr2');
    await put('notes.txt', 'ignored\n');
    expect(await collect(inputLines(ctx, storage, 'accounts/acme/datasets/in'))).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(await collect(selectedRows(ctx, storage, 'accounts/acme/datasets/in', new Set([2, 3])))).toEqual([{ number: 1, line: 'r1' }, { number: 4, line: 'r4' }]);
  });
});
