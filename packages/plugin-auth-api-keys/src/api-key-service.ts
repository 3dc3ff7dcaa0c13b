import {
  authorize, compileValidator, invalidArgument, notFound, parseOrderBy,
  parseResourceName, prepareListRequest, preconditionEtag, etagMismatch, Code, isGatewayError,
  timestampSchema, displayNameSchema, clockMs,
  type ApiKeyInfo, type ApiKeyManager, type ApiKeyPage, type Authenticator, type Clock, type CreatedApiKey,
  type FieldDeclarations, type GatewaySecrets, type IdGenerator, type JsonObject, type Principal, type RequestContext,
  type PreconditionOptions, type Role, type Storage, type StoredResource,
} from '@berth/core';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-format.js';
import type { IdentityCache } from './identity-cache.js';
import { publishPrincipalChange } from './principal-change-feed.js';

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

/** What the secret index (and the legacy key-value index) holds for a key's hash. */
interface KeyIndexEntry {
  /** The key's record, `accounts/{a}/users/{u}/apiKeys/{keyId}` (`name` in legacy entries). */
  keyName?: string;
  name?: string;
  userName: string;
  expireTime?: string;
  /**
   * createTime of the owning user when the key was issued. A user deleted and re-created under the same
   * id is another user: the old user's keys must not act for it.
   */
  userCreateTime?: string;
}

/**
 * The secret index: one storage record per key hash, written in the same transaction as the key's own
 * record. The storage's unique names make two keys with one secret impossible, however they race.
 */
export function secretIndexName(hash: string): string {
  return `internal/apiKeySecrets/${hash}`;
}

/** Keys issued before the secret index were indexed in the key-value store; they keep working. */
function legacyIndexKey(hash: string): string {
  return `berth:apikey:${hash}`;
}

export interface ApiKeyServiceOptions {
  /**
   * How long a verified key is trusted without reading storage again (ms). Default 2000; 0 turns the
   * cache off. Whatever it is, a change to the key's owner or a revocation is honoured at once on the
   * instance that made it and within `staleBoundMs` on the others.
   */
  readonly cacheTtlMs?: number;
  /** How often each instance reads the other instances' principal changes (ms). Default 250. */
  readonly changeFeedIntervalMs?: number;
  /**
   * Longest time (ms) another instance may keep honouring a changed role, a deleted user or a revoked
   * key. Default 1000; must exceed `changeFeedIntervalMs`. When the change feed cannot be read for that
   * long, identities are read from storage on every request until it recovers.
   */
  readonly staleBoundMs?: number;
}

/**
 * Bearer API keys: issued once, stored as SHA-256 hashes (`accounts/{a}/users/{u}/apiKeys/{keyId}`
 * records plus the secret index, see {@link secretIndexName}), resolved to the owning user's principal.
 * Verified keys are cached per instance in an {@link IdentityCache}.
 */
export class ApiKeyService implements ApiKeyManager, Authenticator {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly secrets: GatewaySecrets,
    private readonly cache: IdentityCache,
  ) {}

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
    const info: Omit<ApiKeyInfo, 'etag'> = {
      keyId,
      ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
      prefix: displayPrefix(key),
      createTime: now.toISOString(),
      ...(input.expireTime !== undefined ? { expireTime: new Date(input.expireTime).toISOString() } : {}),
    };
    const hash = hashApiKey(key);
    const entry: KeyIndexEntry = {
      keyName: name,
      userName,
      ...(info.expireTime ? { expireTime: info.expireTime } : {}),
      ...(typeof user.createTime === 'string' ? { userCreateTime: user.createTime } : {}),
    };
    if ((await this.storage.kv.get(ctx, legacyIndexKey(hash))) !== undefined) throw secretInUse();
    const stored = await this.storage.transaction(ctx, async (tx) => {
      // Uniqueness is the storage's: a second index record with this hash cannot commit.
      await tx.resources.create(ctx, secretIndexName(hash), { ...entry }).catch((error: unknown) => {
        throw isGatewayError(error) && error.code === Code.ALREADY_EXISTS ? secretInUse() : error;
      });
      return tx.resources.create(ctx, name, { name, ...info, keyHash: hash });
    });
    // A refusal of this secret remembered before it was issued must not outlive the issue.
    this.cache.forgetKey(hash);
    return { ...info, etag: stored.etag, key };
  }

  async list(ctx: RequestContext, userName: string, params: { pageSize?: number; pageToken?: string }): Promise<ApiKeyPage> {
    await this.requireUser(ctx, userName, 'list');
    const prepared = prepareListRequest(
      { pageSize: params.pageSize, pageToken: params.pageToken, otherParams: { user: userName } },
      { scope: `${userName}/apiKeys`, declarations: keyFields, defaultOrder: 'create_time', secret: this.secrets.pageTokenSecret },
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
      apiKeys: result.items.map(toInfo),
      ...(result.hasMore && last ? { nextPageToken: prepared.nextPageToken(last.data) } : {}),
      totalSize: result.totalSize,
    };
  }

  async delete(ctx: RequestContext, userName: string, keyId: string, options: PreconditionOptions = {}): Promise<void> {
    await this.requireUser(ctx, userName, 'delete');
    const name = `${userName}/apiKeys/${keyId}`;
    const found = await this.storage.resources.get(ctx, name);
    if (!found) throw notFound(name);
    const expected = preconditionEtag(options.etag);
    // Checked before anything is removed, and again by the record's delete inside the transaction.
    if (expected !== undefined && expected !== found.etag) throw etagMismatch(name, expected);
    await this.revoke(ctx, found, expected);
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
      for (const item of page.items) await this.revoke(ctx, item);
      if (!page.hasMore) return;
    }
  }

  /**
   * Removes the key's record and index entry and publishes the revocation to the other instances, in
   * one transaction; then forgets the key here, before the revocation is acknowledged.
   */
  private async revoke(ctx: RequestContext, record: StoredResource, expectedEtag?: string): Promise<void> {
    const hash = String(record.data.keyHash);
    await this.storage.kv.delete(ctx, legacyIndexKey(hash));
    await this.storage.transaction(ctx, async (tx) => {
      await ignoreNotFound(tx.resources.delete(ctx, secretIndexName(hash)));
      await ignoreNotFound(tx.resources.delete(ctx, record.name, expectedEtag));
      await publishPrincipalChange(ctx, tx.outbox, { keyHash: hash });
    });
    this.cache.forgetKey(hash);
  }

  /** A fresh cached positive answer for the credential, without I/O (see `Authenticator.authenticateCached`). */
  authenticateCached(credential: string): Principal | undefined {
    return this.cache.fresh(credential, clockMs(this.clock))?.principal;
  }

  async authenticate(ctx: RequestContext, credential: string): Promise<Principal | undefined> {
    if (credential.length === 0 || credential.length > 512) return undefined;
    const nowMs = clockMs(this.clock);
    // A refused key is remembered too (as an undefined principal).
    const cached = this.cache.fresh(credential, nowMs);
    if (cached) return cached.principal;
    const generation = this.cache.readStarted();
    const hash = hashApiKey(credential);
    const { principal, expiresAtMs } = await this.resolvePrincipal(ctx, hash, nowMs);
    // A cached principal never outlives its key's expireTime.
    this.cache.remember(credential, { principal, until: Math.min(nowMs + this.cache.ttlMs, expiresAtMs), hash }, generation);
    return principal;
  }

  private async readIndex(ctx: RequestContext, hash: string): Promise<KeyIndexEntry | undefined> {
    const indexed = await this.storage.resources.get(ctx, secretIndexName(hash));
    const entry = indexed?.data ?? (await this.storage.kv.get(ctx, legacyIndexKey(hash)));
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
    const parsed = entry as unknown as KeyIndexEntry;
    return typeof parsed.userName === 'string' && typeof (parsed.keyName ?? parsed.name) === 'string' ? parsed : undefined;
  }

  private async resolvePrincipal(
    ctx: RequestContext,
    hash: string,
    nowMs: number,
  ): Promise<{ principal: Principal | undefined; expiresAtMs: number }> {
    const none = { principal: undefined, expiresAtMs: Number.POSITIVE_INFINITY };
    const entry = await this.readIndex(ctx, hash);
    if (!entry) return none;
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
        keyId: String(entry.keyName ?? entry.name).split('/').pop()!,
      },
      expiresAtMs,
    };
  }
}

function secretInUse(): Error {
  return invalidArgument('that API key is already in use');
}

async function ignoreNotFound(work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!(isGatewayError(error) && error.code === Code.NOT_FOUND)) throw error;
  }
}

function toInfo({ data, etag }: StoredResource): ApiKeyInfo {
  return {
    keyId: String(data.keyId),
    ...(typeof data.displayName === 'string' ? { displayName: data.displayName } : {}),
    prefix: String(data.prefix),
    createTime: String(data.createTime),
    ...(typeof data.expireTime === 'string' ? { expireTime: data.expireTime } : {}),
    etag,
  };
}




