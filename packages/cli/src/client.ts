/** The gateway's control plane over HTTP (fetch): JSON in, JSON out, errors as {@link GatewayError}. */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CliError, GatewayError } from './errors.js';
import type { Settings } from './config.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
}

export class GatewayClient {
  constructor(private readonly settings: Settings) {}

  /** `/v1/accounts/{account}` followed by `path`. */
  accountPath(path: string): string {
    return `/v1/accounts/${encodeURIComponent(this.settings.account)}${path}`;
  }

  get account(): string {
    return this.settings.account;
  }

  async request<T = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.settings.baseUrl}${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
    } catch (error) {
      throw this.unreachable(error);
    }
    return answer<T>(response.status, await response.text());
  }

  /**
   * Sends a streamed body (`body` is pulled only as fast as the socket drains: node:http with
   * backpressure, so memory stays flat whatever the size), then reads the JSON answer. `path` is under
   * the base URL; a signed URL (absolute, its signature the credential) is sent without the API key.
   */
  async upload<T = Record<string, unknown>>(path: string, body: AsyncIterable<Uint8Array>, headers: Record<string, string>, options: { method?: 'POST' | 'PUT'; signedUrl?: boolean } = {}): Promise<T> {
    const url = options.signedUrl ? new URL(path) : new URL(`${this.settings.baseUrl}${path}`);
    const all: Record<string, string> = { accept: 'application/json', ...headers };
    if (this.settings.apiKey && !options.signedUrl) all.authorization = `Bearer ${this.settings.apiKey}`;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, { method: options.method ?? 'POST', headers: all });
    const responded = new Promise<IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', reject);
    });
    try {
      // The gateway may answer (a refusal) before the whole body was sent: the answer wins over a broken pipe.
      const sent = pipeline(Readable.from(body, { objectMode: false }), request).catch((error: unknown) => error);
      const response = await responded;
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      request.destroy(); // an early answer (a refusal) stops the rest of the body
      await sent;
      return answer<T>(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      request.destroy();
      throw this.unreachable(error);
    }
  }

  private unreachable(error: unknown): CliError {
    const cause = (error as { cause?: { code?: string; message?: string }; code?: string }).cause ?? (error as { code?: string; message?: string });
    return new CliError(`cannot reach the gateway at ${this.settings.baseUrl}: ${cause.code ?? cause.message ?? (error as Error).message}`);
  }
}

/** The parsed JSON answer, or the gateway's error for a status that is not 2xx. */
function answer<T>(status: number, text: string): T {
  let parsed: unknown = text;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {}
  }
  if (status < 200 || status > 299) throw GatewayError.from(status, parsed);
  return (text === '' ? {} : parsed) as T;
}
