import type { Readable } from 'node:stream';
import { invalidArgument, type GatewayError } from '../errors/gateway-error.js';

export function responseTooLarge(origin: string, maxBytes: number): GatewayError {
  return invalidArgument(`outbound request to ${origin} refused: the answer is larger than ${maxBytes} bytes`, { reason: 'EGRESS_RESPONSE_TOO_LARGE' });
}

/** The declared `content-length`, when it is one number. */
function declaredLength(contentLength: string | string[] | undefined): number | undefined {
  if (typeof contentLength !== 'string' || !/^\d+$/.test(contentLength)) return undefined;
  return Number(contentLength);
}

/** Refuses up front an answer whose declared length is over the cap, before a byte of it is read. */
export function checkDeclaredLength(contentLength: string | string[] | undefined, maxBytes: number, origin: string): void {
  const length = declaredLength(contentLength);
  if (length !== undefined && length > maxBytes) throw responseTooLarge(origin, maxBytes);
}

/**
 * Reads a whole body, destroying it (which aborts the exchange) as soon as it passes `maxBytes`.
 * @throws GatewayError INVALID_ARGUMENT over the cap; whatever the stream fails with otherwise
 */
export async function readCapped(body: Readable, maxBytes: number, origin: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      body.destroy();
      throw responseTooLarge(origin, maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export interface CappedStreamHooks {
  /** Maps a failure of the underlying stream to what the reader sees. */
  readonly failure: (error: unknown) => unknown;
  /** Called once when the stream ends, fails or is cancelled (to release the exchange's timer and listeners). */
  readonly done: () => void;
}

/**
 * A web `ReadableStream` over a Node body that errors with a GatewayError INVALID_ARGUMENT (and destroys
 * the body) once more than `maxBytes` have passed. Pulled on demand: nothing is read ahead of the reader.
 */
export function cappedStream(body: Readable, maxBytes: number, origin: string, hooks: CappedStreamHooks): ReadableStream<Uint8Array> {
  const chunks = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let size = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    hooks.done();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done === true) {
            finish();
            controller.close();
            return;
          }
          size += next.value.byteLength;
          if (size > maxBytes) throw responseTooLarge(origin, maxBytes);
          controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
        } catch (error) {
          body.destroy();
          finish();
          controller.error(hooks.failure(error));
        }
      },
      cancel() {
        body.destroy();
        finish();
      },
    },
    { highWaterMark: 0 },
  );
}
