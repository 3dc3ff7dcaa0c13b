import type { GatewayConfig } from '../kernel/config.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { ApiKeyManager } from '../ports/api-keys.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import { Code, isGatewayError } from '../errors/index.js';
import type { UserService } from '../resources/users/user-service.js';
import type { User } from '../resources/users/user-schema.js';

export const bootstrapAdminId = 'admin';
/** How long one start holds the bootstrap claim. */
const bootstrapClaimMs = 60_000;

/**
 * First start on an empty account: creates the admin user `accounts/{a}/users/admin` and its API key
 * (`config.bootstrapApiKey`, or a generated one logged once). Idempotent: once the account has users,
 * nothing happens, so a restart or a second instance never creates a second admin.
 */
export async function bootstrapAccount(
  ctx: RequestContext,
  config: GatewayConfig,
  users: UserService,
  storage: Storage,
  apiKeys: ApiKeyManager | undefined,
  logger: GatewayLogger,
): Promise<void> {
  const accountId = config.bootstrapAccountId;
  // The claim expires, so a start that crashed half-way through bootstrap is retried by the next one.
  const claimed = await storage.kv.set(ctx, `berth:bootstrap:${accountId}`, new Date().toISOString(), { ifAbsent: true, ttlMs: bootstrapClaimMs });
  if (!claimed) return;
  const existing = await users.list(ctx, accountId, { pageSize: 1 });
  if (existing.totalSize > 0) return;
  let admin: User;
  try {
    admin = await users.create(
      ctx,
      accountId,
      { role: 'admin', displayName: 'Administrator', email: `admin@${accountId}.local` },
      bootstrapAdminId,
    );
  } catch (error) {
    // Another instance whose claim expired meanwhile created it: bootstrap is done.
    if (isGatewayError(error) && error.code === Code.ALREADY_EXISTS) return;
    throw error;
  }
  if (!apiKeys) {
    logger.warn({ account: accountId }, 'no API key manager is installed: the bootstrap admin has no key');
    return;
  }
  const created = await apiKeys.create(
    ctx,
    admin.name,
    { apiKey: { displayName: 'bootstrap admin key' } },
    config.bootstrapApiKey ? { secret: config.bootstrapApiKey } : {},
  );
  if (config.bootstrapApiKey) {
    logger.info({ account: accountId, user: admin.name, keyId: created.keyId }, 'bootstrap admin created with the key from BERTH_API_KEY');
  } else {
    logger.warn({ account: accountId, user: admin.name, keyId: created.keyId, apiKey: created.key }, 'bootstrap admin created; this API key is shown only once');
  }
}
