/** What {@link ByteBound} enforces on a stream of chunks, and the errors it throws. */
export interface ByteBoundOptions {
  /** Most bytes the stream may carry. */
  readonly max: number;
  /** Thrown at the first chunk that takes the count past `max`, before that chunk is passed on. */
  readonly tooMany: (received: number) => Error;
  /** When given, the stream must carry exactly `max` bytes: thrown at its end when it carried fewer. */
  readonly tooFew?: (received: number) => Error;
  /** Sees each chunk as it is passed on (a format checker); may throw to stop the stream. */
  readonly onChunk?: (chunk: Uint8Array) => void;
}

/**
 * The size check of an upload, made while the bytes stream to a blob store: {@link pass} hands the chunks
 * on unchanged and counts them, and fails the stream at the first byte too many (and, for an exact size,
 * at an end that comes early). Failing inside the stream means the store never commits the object: a
 * store's `putStream` keeps the previous object (or none) when its chunks throw. {@link received} says how
 * many bytes were passed on, for an error message after a broken upload.
 */
export class ByteBound {
  private count = 0;

  constructor(private readonly options: ByteBoundOptions) {}

  /** Bytes passed on so far. */
  get received(): number {
    return this.count;
  }

  async *pass(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    const { max, tooMany, tooFew, onChunk } = this.options;
    for await (const chunk of chunks) {
      if (this.count + chunk.byteLength > max) throw tooMany(this.count + chunk.byteLength);
      this.count += chunk.byteLength;
      onChunk?.(chunk);
      yield chunk;
    }
    if (tooFew && this.count < max) throw tooFew(this.count);
  }
}
