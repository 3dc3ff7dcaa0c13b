/** The gateway's control plane over HTTP (fetch): JSON in, JSON out, errors as {@link GatewayError}. */
import { CliError, GatewayError } from './errors.js';
import type { Settings } from './config.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** A body sent as is (multipart upload), with its headers. */
  raw?: { body: ReadableStream<Uint8Array>; headers: Record<string, string> };
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
    let body: RequestInit['body'];
    if (options.raw !== undefined) {
      Object.assign(headers, options.raw.headers);
      body = options.raw.body;
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }), ...(options.raw ? { duplex: 'half' } : {}) } as RequestInit);
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach the gateway at ${this.settings.baseUrl}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    const text = await response.text();
    let parsed: unknown = text;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {}
    }
    if (!response.ok) throw GatewayError.from(response.status, parsed);
    return (text === '' ? {} : parsed) as T;
  }
}
