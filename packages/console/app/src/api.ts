/**
 * The console's only way to the gateway: its public HTTP API, with the signed-in key as a bearer token.
 * Paths are relative to where the gateway is mounted, found from the page's `<base href>`
 * (`<mount>/console/`), so a gateway under `/berth` works unchanged.
 */

/** A failed call: the HTTP status and the message of the gateway's error body (either surface's format). */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Credentials {
  readonly accountId: string;
  readonly apiKey: string;
}

/** The gateway's root (`/` or `/<mount>/`), one level above the console's base. */
export function gatewayRoot(): string {
  return new URL('../', document.baseURI).pathname;
}

/** The message of an error body: `{message}` (control plane) or `{error: {message}}` (inference). */
export function errorMessage(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const record = body as { message?: unknown; error?: { message?: unknown } };
    if (typeof record.message === 'string') return record.message;
    if (typeof record.error?.message === 'string') return record.error.message;
  }
  return `HTTP ${status}`;
}

export type Query = Record<string, string | number | boolean | undefined>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

export class Api {
  constructor(readonly credentials: Credentials) {}

  /** `/v1/accounts/<account>` + `path`. */
  accountPath(path: string): string {
    return `${gatewayRoot()}v1/accounts/${encodeURIComponent(this.credentials.accountId)}${path}`;
  }

  /** The account's resource name prefix, `accounts/<account>/`. */
  get resourcePrefix(): string {
    return `accounts/${this.credentials.accountId}/`;
  }

  headers(json: boolean): Record<string, string> {
    return { authorization: `Bearer ${this.credentials.apiKey}`, ...(json ? { 'content-type': 'application/json' } : {}) };
  }

  /** A control-plane call under the account; answers the parsed JSON body, or throws {@link ApiError}. */
  async call<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    return this.fetchJson<T>(method, withQuery(this.accountPath(path), options.query), options.body);
  }

  async fetchJson<T>(method: string, url: string, body?: unknown): Promise<T> {
    const response = await fetch(url, {
      method,
      headers: this.headers(body !== undefined),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) throw new ApiError(response.status, errorMessage(response.status, parsed));
    return parsed as T;
  }

  /** Every item of a list at `path` below the account (following page tokens, up to `limit` items). */
  async listAll<T>(path: string, query: Query = {}, limit = 1000): Promise<T[]> {
    const collection = path.slice(path.lastIndexOf('/') + 1);
    const items: T[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.call<Record<string, unknown>>('GET', `/${path}`, { query: { pageSize: 200, ...query, pageToken } });
      items.push(...((page[collection] as T[] | undefined) ?? []));
      pageToken = typeof page.nextPageToken === 'string' && page.nextPageToken !== '' ? page.nextPageToken : undefined;
    } while (pageToken !== undefined && items.length < limit);
    return items;
  }
}

/** The last segment of a resource name (`accounts/a/models/m` → `m`). */
export function idOf(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}
