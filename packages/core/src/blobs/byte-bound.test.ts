import { describe, expect, it } from 'vitest';
import { ByteBound } from './byte-bound.js';

async function* chunksOf(...sizes: number[]): AsyncIterable<Uint8Array> {
  for (const [i, size] of sizes.entries()) yield new Uint8Array(size).fill(i + 1);
}

/** Reads `stream` to its end or its error, answering the chunk sizes it passed on and the error. */
async function drain(stream: AsyncIterable<Uint8Array>): Promise<{ sizes: number[]; error?: Error }> {
  const sizes: number[] = [];
  try {
    for await (const chunk of stream) sizes.push(chunk.byteLength);
    return { sizes };
  } catch (error) {
    return { sizes, error: error as Error };
  }
}

const tooMany = (received: number) => new Error(`too many: ${received}`);
const tooFew = (received: number) => new Error(`too few: ${received}`);

describe('ByteBound', () => {
  it('passes the chunks on unchanged and counts them', async () => {
    const bound = new ByteBound({ max: 10, tooMany });
    const seen: number[] = [];
    const passed: Uint8Array[] = [];
    for await (const chunk of new ByteBound({ max: 10, tooMany, onChunk: (c) => seen.push(c[0]!) }).pass(chunksOf(3, 4))) passed.push(chunk);
    expect(passed.map((c) => [c.byteLength, c[0]])).toEqual([[3, 1], [4, 2]]);
    expect(seen).toEqual([1, 2]);
    expect(await drain(bound.pass(chunksOf(4, 6)))).toEqual({ sizes: [4, 6] });
    expect(bound.received).toBe(10);
  });

  it('fails at the chunk that takes the count past the limit, before passing it on', async () => {
    const seen: number[] = [];
    const bound = new ByteBound({ max: 10, tooMany, onChunk: (c) => seen.push(c.byteLength) });
    const { sizes, error } = await drain(bound.pass(chunksOf(4, 6, 1, 5)));
    expect(sizes).toEqual([4, 6]);
    expect(error?.message).toBe('too many: 11');
    expect(seen).toEqual([4, 6]);
    expect(bound.received).toBe(10);
  });

  it('with tooFew, fails an early end and accepts exactly the size', async () => {
    const short = new ByteBound({ max: 10, tooMany, tooFew });
    expect(await drain(short.pass(chunksOf(4, 5)))).toMatchObject({ sizes: [4, 5], error: new Error('too few: 9') });
    expect(await drain(new ByteBound({ max: 10, tooMany, tooFew }).pass(chunksOf(4, 6)))).toEqual({ sizes: [4, 6] });
    expect(await drain(new ByteBound({ max: 0, tooMany, tooFew }).pass(chunksOf()))).toEqual({ sizes: [] });
    expect((await drain(new ByteBound({ max: 0, tooMany, tooFew }).pass(chunksOf(1)))).error?.message).toBe('too many: 1');
  });

  it('without tooFew, a shorter stream is fine', async () => {
    expect(await drain(new ByteBound({ max: 10, tooMany }).pass(chunksOf(2)))).toEqual({ sizes: [2] });
  });

  it('lets onChunk stop the stream', async () => {
    const bound = new ByteBound({ max: 10, tooMany, onChunk: (c) => { if (c[0] === 2) throw new Error('bad chunk'); } });
    expect(await drain(bound.pass(chunksOf(1, 1, 1)))).toMatchObject({ sizes: [1], error: new Error('bad chunk') });
  });
});
