import type { RequestContext } from '../contracts/request-context.js';

/** One stored file of an uploaded model, as its upload recorded it. */
export interface ModelFileEntry {
  /** Path inside the model's directory, e.g. `model.safetensors` or `adapter_config.json`. */
  readonly path: string;
  readonly sizeBytes: number;
  /** Lowercase hex SHA-256 of the file's bytes. */
  readonly sha256: string;
}

/**
 * Where a replica gets one uploaded model's files (base weights or a LoRA add-on): the recorded list, a
 * streamed reader over the blob store, and short-lived signed download URLs for replicas outside the
 * gateway's process. A replica checks every file it reads against its recorded size and SHA-256.
 */
export interface ModelFileSource {
  /** The model's resource name, e.g. `accounts/a/models/m`. */
  readonly model: string;
  readonly files: readonly ModelFileEntry[];
  /**
   * Streams a file's stored bytes, in chunks (never the whole file in memory).
   * @throws GatewayError NOT_FOUND when the file is not in the store.
   */
  read(ctx: RequestContext, path: string): Promise<AsyncIterable<Uint8Array>>;
  /**
   * A signed GET URL of one file, valid for `ttlSeconds`: the signature is bound to the method, the file
   * and the expiry, so a URL is no long-lived credential. Relative to the gateway's origin (`/v1/…`).
   */
  signedUrl(path: string, ttlSeconds: number): string;
}
