import {
  apiKeyManagerToken, authenticatorToken, clockMs, clockToken, createToken, definePlugin, gatewaySecretsToken, idGeneratorToken, loggerToken,
  principalChangeListenersToken, registerResourceModules, storageToken, userDeletionHooksToken, type GatewayPlugin,
} from '@berth/core';
import { apiKeyRoutesModule } from './api-key-api.js';
import { ApiKeyService, type ApiKeyServiceOptions } from './api-key-service.js';
import { IdentityCache } from './identity-cache.js';
import { PrincipalChangeFeed, publishPrincipalChange } from './principal-change-feed.js';

export const apiKeyServiceToken = createToken<ApiKeyService>('ApiKeyService', { providedBy: 'apiKeyAuth()' });
/** This instance's reader of the principal changes published by every instance (bound for tests and hosts). */
export const principalChangeFeedToken = createToken<PrincipalChangeFeed>('PrincipalChangeFeed');

/**
 * Bearer API-key authentication: binds the Authenticator and the ApiKeyManager (create, list and delete
 * a user's keys) and registers their routes (`apiKeyRoutesModule`). Roles come from the key owner's User resource. Verified keys are cached per instance;
 * a change to a user (role, email, deletion) or a revoked key is forgotten at once on the instance that
 * made it and, through the storage outbox, within `staleBoundMs` (default 1 s) on the others.
 */
export function apiKeyAuth(options: ApiKeyServiceOptions = {}): GatewayPlugin {
  const intervalMs = options.changeFeedIntervalMs ?? 250;
  const staleBoundMs = options.staleBoundMs ?? 1000;
  if (!(intervalMs > 0 && staleBoundMs > intervalMs)) {
    throw new Error('apiKeyAuth: staleBoundMs must exceed changeFeedIntervalMs, and both be positive');
  }
  const cache = new IdentityCache({ ttlMs: Math.max(0, options.cacheTtlMs ?? 2000), staleBoundMs });
  return definePlugin({
    id: 'auth-api-keys',
    register(binder) {
      binder.bind({
        token: apiKeyServiceToken,
        deps: [storageToken, clockToken, idGeneratorToken, gatewaySecretsToken],
        factory: (storage, clock, ids, secrets) => new ApiKeyService(storage, clock, ids, secrets, cache),
      });
      binder.bind({ token: authenticatorToken, deps: [apiKeyServiceToken], factory: (service) => service });
      binder.bind({ token: apiKeyManagerToken, deps: [apiKeyServiceToken], factory: (service) => service });
      registerResourceModules(binder, [apiKeyRoutesModule]);
      binder.contribute({
        token: userDeletionHooksToken,
        deps: [apiKeyServiceToken],
        factory: (service) => ({ userDeleted: (ctx, userName) => service.revokeAll(ctx, userName) }),
      });
      binder.bind({
        token: principalChangeFeedToken,
        deps: [storageToken, clockToken, loggerToken],
        factory: (storage, clock, logger) => new PrincipalChangeFeed(storage.outbox, cache, () => clockMs(clock), logger),
      });
      binder.contribute(principalChangeListenersToken, {
        inTransaction: (ctx, userName, tx) => publishPrincipalChange(ctx, tx.outbox, { userName }),
        committed: (userName) => cache.forgetUser(userName),
      });
    },
    start({ resolver }) {
      if (cache.ttlMs > 0) resolver.resolve(principalChangeFeedToken).start(intervalMs);
    },
    async stop({ resolver }) {
      await resolver.resolve(principalChangeFeedToken).stop();
    },
  });
}
