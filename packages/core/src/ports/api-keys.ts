import type { RequestContext } from '../contracts/request-context.js';

/** An API key as listed: never the secret. */
export interface ApiKeyInfo {
  readonly keyId: string;
  readonly displayName?: string;
  /** First characters of the key, to recognise it. */
  readonly prefix: string;
  readonly createTime: string;
  readonly expireTime?: string;
  /** AIP-154 version of the key's record; send it back on delete to revoke only this version. */
  readonly etag: string;
}

/** Answer of create: the only time `key` (the secret) is ever shown. */
export interface CreatedApiKey extends ApiKeyInfo {
  readonly key: string;
}

export interface ApiKeyPage {
  readonly apiKeys: ApiKeyInfo[];
  readonly nextPageToken?: string;
  readonly totalSize: number;
}

/**
 * Issues and revokes bearer API keys (`accounts/{a}/users/{u}/apiKeys`). Keys are stored only as hashes.
 * Throws NOT_FOUND for an unknown user or key, INVALID_ARGUMENT for a bad body, PERMISSION_DENIED per
 * the role matrix.
 */
export interface ApiKeyManager {
  create(ctx: RequestContext, userName: string, body: unknown, options?: { secret?: string }): Promise<CreatedApiKey>;
  list(ctx: RequestContext, userName: string, params: { pageSize?: number; pageToken?: string }): Promise<ApiKeyPage>;
  /**
   * With `options.etag` (absent or `*`: no precondition) the key is revoked only while that etag is
   * current, else ABORTED.
   */
  delete(ctx: RequestContext, userName: string, keyId: string, options?: { readonly etag?: string }): Promise<void>;
  /** Revokes every key of a user (called when the user is deleted). No authorization check: the caller decided. */
  revokeAll(ctx: RequestContext, userName: string): Promise<void>;
}
