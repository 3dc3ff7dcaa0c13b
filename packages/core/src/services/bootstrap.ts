import type { GatewayConfig } from '../kernel/config.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { ApiKeyManager } from '../ports/api-keys.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { CoreServices } from './core-services.js';

export const bootstrapAdminId = 'admin';

/**
 * First start on an empty account: creates the admin user `accounts/{a}/users/admin` and its API key
 * (`config.bootstrapApiKey`, or a generated one logged once). Idempotent: once the account has users,
 * nothing happens, so a restart or a second instance never creates a second admin.
 */
export async function bootstrapAccount(
  ctx: RequestContext,
  config: GatewayConfig,
  services: CoreServices,
  storage: Storage,
  apiKeys: ApiKeyManager | undefined,
  logger: GatewayLogger,
): Promise<void> {
  const accountId = config.bootstrapAccountId;
  const claimed = await storage.kv.set(ctx, `berth:bootstrap:${accountId}`, new Date().toISOString(), { ifAbsent: true });
  const existing = await services.users.list(ctx, accountId, { pageSize: 1 });
  if (!claimed || existing.totalSize > 0) return;
  const admin = await services.users.create(
    ctx,
    accountId,
    { role: 'admin', displayName: 'Administrator', email: `admin@${accountId}.local` },
    bootstrapAdminId,
  );
  if (!apiKeys) {
    logger.warn({ account: accountId }, 'no API key manager is installed: the bootstrap admin has no key');
    return;
  }
  const created = await apiKeys.create(
    ctx,
    String(admin.name),
    { apiKey: { displayName: 'bootstrap admin key' } },
    config.bootstrapApiKey ? { secret: config.bootstrapApiKey } : {},
  );
  if (config.bootstrapApiKey) {
    logger.info({ account: accountId, user: admin.name, keyId: created.keyId }, 'bootstrap admin created with the key from BERTH_API_KEY');
  } else {
    logger.warn({ account: accountId, user: admin.name, keyId: created.keyId, apiKey: created.key }, 'bootstrap admin created; this API key is shown only once');
  }
}
