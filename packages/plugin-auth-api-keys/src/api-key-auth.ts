import {
  apiKeyManagerToken, authenticatorToken, clockMs, clockToken, createToken, definePlugin, loggerToken, principalChangeListenersToken,
  storageToken, type GatewayPlugin,
} from '@berth/core';
import { ApiKeyService, type ApiKeyServiceOptions } from './api-key-service.js';
import { IdentityCache } from './identity-cache.js';
import { PrincipalChangeFeed, publishPrincipalChange } from './principal-change-feed.js';

export const apiKeyServiceToken = createToken<ApiKeyService>('ApiKeyService');
/** This instance's reader of the principal changes published by every instance (bound for tests and hosts). */
export const principalChangeFeedToken = createToken<PrincipalChangeFeed>('PrincipalChangeFeed');

/**
 * Bearer API-key authentication: binds the Authenticator and the ApiKeyManager (create, list and delete
 * a user's keys). Roles come from the key owner's User resource. Verified keys are cached per instance;
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
      binder.bindFactory(apiKeyServiceToken, (r) => ApiKeyService.fromResolver(r, cache));
      binder.bindFactory(authenticatorToken, (r) => r.resolve(apiKeyServiceToken));
      binder.bindFactory(apiKeyManagerToken, (r) => r.resolve(apiKeyServiceToken));
      binder.bindFactory(principalChangeFeedToken, (r) => {
        const clock = r.resolve(clockToken);
        return new PrincipalChangeFeed(r.resolve(storageToken).outbox, cache, () => clockMs(clock), r.resolve(loggerToken));
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
