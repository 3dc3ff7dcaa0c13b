import { finished, type Readable } from 'node:stream';

/** Bytes a request may run ahead of its reader before the socket is paused. */
export const defaultAheadBytes = 1024 * 1024;

/**
 * A request body's chunks as an async iterable, read in flowing mode with a bounded queue: the socket
 * keeps reading while the consumer works on a chunk (hashing it, waiting for a disk write), and is paused
 * only when more than `aheadBytes` wait unread (backpressure still reaches the client).
 *
 * Why not the stream's own async iterator: it reads in paused mode, and a request's `highWaterMark`
 * (16 KiB on Node 20) is below a socket read (64 KiB), so every chunk stopped the socket's reading and
 * the next `read()` restarted it — two event-loop turns and two `epoll_ctl` calls per 64 KiB, and no
 * reading while the consumer was busy.
 *
 * Reading starts at the first `next()`, so a handler that refuses before reading leaves the body
 * unread. The iteration fails with the stream's error, or `ERR_STREAM_PREMATURE_CLOSE` when the client
 * goes away before the end. A consumer that stops early (`return()`) leaves the rest unread and the
 * stream paused: the transport answers and then closes the connection.
 */
export function flowingChunks(stream: Readable, aheadBytes = defaultAheadBytes): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      const queue: Buffer[] = [];
      let head = 0;
      let queued = 0;
      let started = false;
      let ended = false;
      let failure: Error | undefined;
      let stopped = false;
      let waiting: { resolve: (result: IteratorResult<Uint8Array>) => void; reject: (error: Error) => void } | undefined;
      let cleanup: (() => void) | undefined;

      const settle = (): void => {
        if (!waiting) return;
        const { resolve, reject } = waiting;
        if (head < queue.length) {
          waiting = undefined;
          resolve({ value: take(), done: false });
        } else if (failure) {
          waiting = undefined;
          reject(failure);
        } else if (ended) {
          waiting = undefined;
          resolve({ value: undefined, done: true });
        }
      };
      const take = (): Buffer => {
        const chunk = queue[head]!;
        queue[head] = undefined as unknown as Buffer;
        head += 1;
        if (head === queue.length) {
          queue.length = 0;
          head = 0;
        }
        queued -= chunk.byteLength;
        if (queued < aheadBytes && stream.isPaused() && !stopped && !ended) stream.resume();
        return chunk;
      };
      const onData = (chunk: Buffer): void => {
        queue.push(chunk);
        queued += chunk.byteLength;
        if (queued >= aheadBytes) stream.pause();
        settle();
      };
      const stop = (): void => {
        stopped = true;
        stream.off('data', onData);
        cleanup?.();
        cleanup = undefined;
        if (!ended) stream.pause();
        queue.length = 0;
        head = 0;
        queued = 0;
      };
      const start = (): void => {
        started = true;
        stream.on('data', onData);
        cleanup = finished(stream, { writable: false }, (error) => {
          if (error) failure = error;
          else ended = true;
          settle();
        });
      };

      return {
        next(): Promise<IteratorResult<Uint8Array>> {
          if (stopped) return Promise.resolve({ value: undefined, done: true });
          if (!started) start();
          if (head < queue.length) return Promise.resolve({ value: take(), done: false });
          if (failure) return Promise.reject(failure);
          if (ended) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve, reject) => {
            waiting = { resolve, reject };
          });
        },
        return(): Promise<IteratorResult<Uint8Array>> {
          stop();
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
}
