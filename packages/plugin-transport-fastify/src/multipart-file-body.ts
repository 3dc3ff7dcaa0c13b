import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import { invalidArgument, type GatewayError, type MultipartFileBody, type MultipartFileSpec, type StreamedFile } from '@berth/core';
import { bodyTooLargeReason } from './json-body.js';

const ignore = (): void => undefined;

/** INVALID_ARGUMENT for a body busboy cannot parse (a cut body, a part without its end). */
function malformedBody(error: unknown): GatewayError {
  return invalidArgument(`malformed multipart/form-data body: ${error instanceof Error ? error.message : String(error)}`);
}

/** Waits until `stream` has data to read, has ended or has failed. */
function readable(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: unknown) => {
      stream.off('readable', onReadable);
      stream.off('end', onReadable);
      stream.off('error', done);
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onReadable = () => done();
    stream.once('readable', onReadable);
    stream.once('end', onReadable);
    stream.once('error', done);
  });
}

/** Lets a file stream flow into nothing, so the parser reads the body to its end. */
function drain(stream: Readable): void {
  if (stream.readableEnded || stream.destroyed) return;
  stream.removeAllListeners('readable');
  stream.on('data', ignore);
  stream.resume();
}

/**
 * The bytes of one file part, pulled as the consumer asks (backpressure reaches the socket); past
 * `maxFileBytes` the iteration fails with INVALID_ARGUMENT (reason BODY_TOO_LARGE, HTTP 413). However the
 * iteration stops, the rest of the part is drained so the request is read to its end.
 */
async function* fileChunks(stream: BusboyFileStream, maxFileBytes: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  try {
    for (;;) {
      const chunk = stream.read() as Buffer | null;
      if (chunk !== null) {
        total += chunk.byteLength;
        if (total > maxFileBytes || stream.truncated) {
          throw invalidArgument(`the file is larger than the ${maxFileBytes} bytes a dataset file may hold`, { reason: bodyTooLargeReason, field: 'file' });
        }
        yield chunk;
        continue;
      }
      if (stream.readableEnded) return;
      if (stream.errored || stream.destroyed) throw malformedBody(stream.errored ?? new Error('the file part ended early'));
      try {
        await readable(stream);
      } catch (error) {
        throw malformedBody(error);
      }
    }
  } finally {
    drain(stream);
  }
}

/**
 * A multipart/form-data body parsed with busboy as the route handler reads it: the file part of the
 * route's field streams its bytes, nothing is buffered whole. The first file part must be in the field;
 * a second file part fails {@link end}; other (text) fields are ignored; the file may be at most
 * `maxFileBytes`. {@link discard} reads whatever the handler left unread, once it has answered.
 */
export class BusboyFileBody implements MultipartFileBody {
  private readonly filePart: Promise<StreamedFile>;
  private readonly finished: Promise<void>;
  private readonly streams: BusboyFileStream[] = [];
  private discarding = false;

  /** Throws INVALID_ARGUMENT when the headers do not describe a multipart body (no boundary). */
  constructor(headers: IncomingHttpHeaders, payload: Readable, spec: MultipartFileSpec) {
    let busboy: BusboyInstance;
    try {
      // fileSize one byte past the cap, so that a file of exactly the cap is not taken for a cut one.
      busboy = Busboy({ headers: headers as { 'content-type': string } & IncomingHttpHeaders, limits: { fileSize: spec.maxFileBytes + 1, fields: 100, parts: 110 } });
    } catch (error) {
      throw invalidArgument(`malformed multipart/form-data header: ${error instanceof Error ? error.message : String(error)}`, { reason: 'UNSUPPORTED_MEDIA_TYPE' });
    }
    let extraFiles = 0;
    this.finished = new Promise<void>((resolve, reject) => {
      busboy.on('finish', resolve);
      busboy.on('error', (error: unknown) => reject(malformedBody(error)));
    }).then(() => {
      if (extraFiles > 0) throw invalidArgument(`the body holds ${extraFiles + 1} files; :upload takes one file in field "${spec.field}"`, { field: spec.field });
    });
    this.filePart = new Promise<StreamedFile>((resolve, reject) => {
      busboy.on('file', (field, stream, filename, _encoding, mimeType) => {
        this.streams.push(stream);
        // Its errors (a cut body) reach the reader through `fileChunks` and busboy's own 'error'; never unhandled.
        stream.on('error', ignore);
        if (this.streams.length > 1 || this.discarding) {
          extraFiles += 1;
          drain(stream);
          return;
        }
        if (field !== spec.field) {
          drain(stream);
          reject(invalidArgument(`the file must be in form field "${spec.field}", not "${field}"`, { field: spec.field }));
          return;
        }
        resolve({ filename, contentType: mimeType, chunks: fileChunks(stream, spec.maxFileBytes) });
      });
      this.finished.then(
        () => reject(invalidArgument(`the body holds no file: send it in form field "${spec.field}"`, { field: spec.field })),
        (error: unknown) => reject(error instanceof Error ? error : malformedBody(error)),
      );
    });
    // Callers may never ask (a refused request): their rejections must not go unhandled.
    this.filePart.catch(ignore);
    this.finished.catch(ignore);
    payload.on('error', (error) => busboy.destroy(error));
    payload.pipe(busboy);
  }

  file(): Promise<StreamedFile> {
    return this.filePart;
  }

  end(): Promise<void> {
    return this.finished;
  }

  /** Reads the rest of the body into nothing (called once the handler has answered). */
  discard(): void {
    this.discarding = true;
    for (const stream of this.streams) drain(stream);
  }
}
