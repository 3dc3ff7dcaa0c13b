import {
  authorize, compileValidator, gatewaySecretsToken, invalidArgument, notFound, parseOrderBy,
  parseResourceName, prepareListRequest, storageToken, clockToken, idGeneratorToken, Code, isGatewayError,
  timestampSchema, displayNameSchema, clockMs,
  type ApiKeyInfo, type ApiKeyManager, type ApiKeyPage, type Authenticator, type Clock, type CreatedApiKey,
  type FieldDeclarations, type GatewaySecrets, type IdGenerator, type JsonObject, type Principal, type RequestContext,
  type Resolver, type Role, type Storage,
} from '@berth/core';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-format.js';

const keyFields: FieldDeclarations = {
  name: { path: ['name'], type: 'string' },
  createTime: { path: ['createTime'], type: 'timestamp' },
};

const validateCreateBody = compileValidator(
  {
    type: 'object',
    properties: {
      apiKey: { type: 'object', properties: { displayName: displayNameSchema, expireTime: timestampSchema } },
    },
  },
  'request body',
);

interface KeyIndexEntry {
  name: string;
  userName: string;
  expireTime?: string;
  /**
   * createTime of the owning user when the key was issued. A user deleted and re-created under the same
   * id is another user: the old user's keys must not act for it.
   */
  userCreateTime?: string;
}

interface CachedPrincipal {
  principal: Principal | undefined;
  until: number;
  hash: string;
}

export interface ApiKeyServiceOptions {
  /**
   * How long a verified key is trusted without reading storage again (ms). A revoked key stops working
   * at once on the instance that revoked it and within this time on the others. Default 2000.
   */
  readonly cacheTtlMs?: number;
}

/**
 * Bearer API keys: issued once, stored as SHA-256 hashes (`accounts/{a}/users/{u}/apiKeys/{keyId}`
 * records plus a hash → record index in the key-value store), resolved to the owning user's principal.
 */
export class ApiKeyService implements ApiKeyManager, Authenticator {
  private readonly cache = new Map<string, CachedPrincipal>();
  private readonly cacheTtlMs: number;

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly secrets: GatewaySecrets,
    options: ApiKeyServiceOptions = {},
  ) {
    this.cacheTtlMs = options.cacheTtlMs ?? 2000;
  }

  static fromResolver(resolver: Resolver, options: ApiKeyServiceOptions): ApiKeyService {
    return new ApiKeyService(
      resolver.resolve(storageToken),
      resolver.resolve(clockToken),
      resolver.resolve(idGeneratorToken),
      resolver.resolve(gatewaySecretsToken),
      options,
    );
  }

  private async requireUser(ctx: RequestContext, userName: string, verb: 'create' | 'list' | 'delete'): Promise<JsonObject> {
    const { accountId } = parseResourceName(userName, 'users', 'user');
    authorize(ctx, `apiKeys.${verb}`, { accountId, ownerUserName: userName });
    const user = await this.storage.resources.get(ctx, userName);
    if (!user) throw notFound(userName);
    return user.data;
  }

  async create(ctx: RequestContext, userName: string, body: unknown, options: { secret?: string } = {}): Promise<CreatedApiKey> {
    const user = await this.requireUser(ctx, userName, 'create');
    validateCreateBody(body ?? {});
    const input = ((body as { apiKey?: JsonObject } | undefined)?.apiKey ?? {}) as { displayName?: string; expireTime?: string };
    const now = this.clock.now();
    if (input.expireTime !== undefined && Date.parse(input.expireTime) <= now.getTime()) {
      throw invalidArgument('apiKey.expireTime must be in the future', { field: 'apiKey.expireTime' });
    }
    if (options.secret !== undefined && options.secret.length < 8) {
      throw invalidArgument('a provided API key must have at least 8 characters');
    }
    const key = options.secret ?? generateApiKey();
    const keyId = this.ids.resourceId();
    const name = `${userName}/apiKeys/${keyId}`;
    const info: ApiKeyInfo = {
      keyId,
      ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
      prefix: displayPrefix(key),
      createTime: now.toISOString(),
      ...(input.expireTime !== undefined ? { expireTime: new Date(input.expireTime).toISOString() } : {}),
    };
    const hash = hashApiKey(key);
    const entry: KeyIndexEntry = {
      name,
      userName,
      ...(info.expireTime ? { expireTime: info.expireTime } : {}),
      ...(typeof user.createTime === 'string' ? { userCreateTime: user.createTime } : {}),
    };
    const indexed = await this.storage.kv.set(ctx, `berth:apikey:${hash}`, { ...entry }, { ifAbsent: true });
    if (!indexed) throw invalidArgument('that API key is already in use');
    await this.storage.resources.create(ctx, name, { name, ...info, keyHash: hash });
    return { ...info, key };
  }

  async list(ctx: RequestContext, userName: string, params: { pageSize?: number; pageToken?: string }): Promise<ApiKeyPage> {
    await this.requireUser(ctx, userName, 'list');
    const prepared = prepareListRequest(
      { pageSize: params.pageSize, pageToken: params.pageToken, otherParams: { user: userName } },
      { declarations: keyFields, defaultOrder: 'create_time', secret: this.secrets.pageTokenSecret },
    );
    const result = await this.storage.resources.list(ctx, {
      parent: userName,
      collection: 'apiKeys',
      orderBy: prepared.orderBy,
      pageSize: prepared.pageSize,
      ...(prepared.after ? { after: prepared.after } : {}),
    });
    const last = result.items[result.items.length - 1];
    return {
      apiKeys: result.items.map(({ data }) => toInfo(data)),
      ...(result.hasMore && last ? { nextPageToken: prepared.nextPageToken(last.data) } : {}),
      totalSize: result.totalSize,
    };
  }

  async delete(ctx: RequestContext, userName: string, keyId: string): Promise<void> {
    await this.requireUser(ctx, userName, 'delete');
    const name = `${userName}/apiKeys/${keyId}`;
    const found = await this.storage.resources.get(ctx, name);
    if (!found) throw notFound(name);
    const hash = String(found.data.keyHash);
    await this.storage.kv.delete(ctx, `berth:apikey:${hash}`);
    this.evict(hash);
    try {
      await this.storage.resources.delete(ctx, name);
    } catch (error) {
      if (!(isGatewayError(error) && error.code === Code.NOT_FOUND)) throw error;
    }
  }

  /** Deletes every key of a user (when the user is deleted). */
  async revokeAll(ctx: RequestContext, userName: string): Promise<void> {
    for (;;) {
      const page = await this.storage.resources.list(ctx, {
        parent: userName,
        collection: 'apiKeys',
        orderBy: parseOrderBy(undefined, keyFields, 'create_time'),
        pageSize: 200,
      });
      for (const item of page.items) {
        await this.storage.kv.delete(ctx, `berth:apikey:${String(item.data.keyHash)}`);
        this.evict(String(item.data.keyHash));
        await this.storage.resources.delete(ctx, item.name).catch(() => undefined);
      }
      if (!page.hasMore) return;
    }
  }

  private evict(hash: string): void {
    for (const [credential, entry] of this.cache) if (entry.hash === hash) this.cache.delete(credential);
  }

  /** The cache entry for the credential while it is fresh. Keyed by the credential itself: a hit costs no hashing. */
  private fresh(credential: string, nowMs: number): CachedPrincipal | undefined {
    const cached = this.cache.get(credential);
    return cached !== undefined && cached.until > nowMs ? cached : undefined;
  }

  /** A fresh cached positive answer for the credential, without I/O (see `Authenticator.authenticateCached`). */
  authenticateCached(credential: string): Principal | undefined {
    return this.fresh(credential, clockMs(this.clock))?.principal;
  }

  async authenticate(ctx: RequestContext, credential: string): Promise<Principal | undefined> {
    if (credential.length === 0 || credential.length > 512) return undefined;
    const nowMs = clockMs(this.clock);
    // The cache lives only in this process; a refused key is remembered too (as an undefined principal).
    const cached = this.fresh(credential, nowMs);
    if (cached) return cached.principal;
    const hash = hashApiKey(credential);
    const { principal, expiresAtMs } = await this.resolvePrincipal(ctx, hash, nowMs);
    if (this.cache.size > 10_000) this.cache.clear();
    // A cached principal never outlives its key's expireTime.
    this.cache.set(credential, { principal, until: Math.min(nowMs + this.cacheTtlMs, expiresAtMs), hash });
    return principal;
  }

  private async resolvePrincipal(
    ctx: RequestContext,
    hash: string,
    nowMs: number,
  ): Promise<{ principal: Principal | undefined; expiresAtMs: number }> {
    const none = { principal: undefined, expiresAtMs: Number.POSITIVE_INFINITY };
    const entry = (await this.storage.kv.get(ctx, `berth:apikey:${hash}`)) as KeyIndexEntry | undefined | null;
    if (!entry || typeof entry !== 'object' || typeof entry.userName !== 'string') return none;
    const expiresAtMs = entry.expireTime !== undefined ? Date.parse(entry.expireTime) : Number.POSITIVE_INFINITY;
    if (expiresAtMs <= nowMs) return none;
    const user = await this.storage.resources.get(ctx, entry.userName);
    if (!user) return none;
    // The owner was deleted and another user created under the same id after the key was issued.
    if (entry.userCreateTime !== undefined && user.data.createTime !== entry.userCreateTime) return none;
    const role = user.data.role as Role;
    const accountId = entry.userName.split('/')[1]!;
    return {
      principal: {
        userName: entry.userName,
        accountId,
        role,
        ...(typeof user.data.email === 'string' ? { email: user.data.email } : {}),
        keyId: entry.name.split('/').pop()!,
      },
      expiresAtMs,
    };
  }
}

function toInfo(data: JsonObject): ApiKeyInfo {
  return {
    keyId: String(data.keyId),
    ...(typeof data.displayName === 'string' ? { displayName: data.displayName } : {}),
    prefix: String(data.prefix),
    createTime: String(data.createTime),
    ...(typeof data.expireTime === 'string' ? { expireTime: data.expireTime } : {}),
  };
}




